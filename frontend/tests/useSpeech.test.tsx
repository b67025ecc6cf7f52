import { act, renderHook } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { heardPrefix, recognitionCtor, useSpeech } from "../src/hooks/useSpeech";

describe("speech helpers", () => {
  it("finds the prefixed recognition constructor Chromium ships", () => {
    class Rec {}
    expect(recognitionCtor({ webkitSpeechRecognition: Rec })).toBe(Rec);
    expect(recognitionCtor({})).toBeNull();
  });

  it("cuts an answer at the end of the word being spoken", () => {
    const text = "Take one tablet twice a day";
    expect(heardPrefix(text, 0)).toBe("");
    expect(heardPrefix(text, 9)).toBe("Take one tablet");
    expect(heardPrefix(text, 24)).toBe(text);
  });
});

describe("useSpeech", () => {
  afterEach(() => {
    delete (globalThis as { speechSynthesis?: unknown }).speechSynthesis;
    delete (globalThis as { SpeechSynthesisUtterance?: unknown }).SpeechSynthesisUtterance;
  });

  it("reports missing recognition and synthesis instead of failing", () => {
    const { result } = renderHook(() => useSpeech());
    expect(result.current.recognitionSupported).toBe(false);
    expect(result.current.synthesisSupported).toBe(false);
    act(() => result.current.startListening("en", () => {}));
    expect(result.current.error).toMatch(/no speech recognition/);
  });

  it("reports what was heard when a spoken reply is stopped", async () => {
    class Utterance {
      lang = "";
      onboundary: ((e: { charIndex: number }) => void) | null = null;
      onend: (() => void) | null = null;
      onerror: (() => void) | null = null;
      constructor(public text: string) {}
    }
    let spoken: Utterance | null = null;
    const synth = { speak: vi.fn((u: Utterance) => (spoken = u)), cancel: vi.fn() };
    Object.assign(globalThis, { speechSynthesis: synth, SpeechSynthesisUtterance: Utterance });
    const { result } = renderHook(() => useSpeech());
    expect(result.current.synthesisSupported).toBe(true);
    let done!: Promise<{ heard: string; interrupted: boolean }>;
    act(() => {
      done = result.current.speak("Take one tablet twice a day", "en");
    });
    expect(result.current.speaking).toBe(true);
    spoken!.onboundary?.({ charIndex: 9 });
    act(() => result.current.stopSpeaking());
    await expect(done).resolves.toEqual({ heard: "Take one tablet", interrupted: true });
    expect(synth.cancel).toHaveBeenCalled();
    expect(result.current.speaking).toBe(false);
  });
});
