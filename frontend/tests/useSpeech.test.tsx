import { act, render, renderHook, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";

import { VoicePanel } from "../src/components/VoicePanel";
import { heardPrefix, recognitionCtor, useSpeech, type Speech } from "../src/hooks/useSpeech";

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

describe("voice errors", () => {
  afterEach(() => {
    delete (globalThis as { webkitSpeechRecognition?: unknown }).webkitSpeechRecognition;
  });

  it.each(["not-allowed", "service-not-allowed", "audio-capture", "network"])(
    "the %s error does not say to type (voice mode has no text box)",
    (code) => {
      let rec: { onerror: ((e: { error: string }) => void) | null } | null = null;
      class Rec {
        lang = "";
        interimResults = false;
        continuous = false;
        maxAlternatives = 1;
        onresult = null;
        onerror: ((e: { error: string }) => void) | null = null;
        onend = null;
        constructor() {
          rec = this;
        }
        start() {}
        stop() {}
        abort() {}
      }
      Object.assign(globalThis, { webkitSpeechRecognition: Rec });
      const { result } = renderHook(() => useSpeech());
      act(() => result.current.startListening("en", () => {}));
      act(() => rec!.onerror?.({ error: code }));
      expect(result.current.error).toMatch(/switch to Text/i);
      expect(result.current.error).not.toMatch(/type instead/i);
    },
  );

  it("offers the switch to Text next to a recognition error", async () => {
    const speech: Speech = {
      recognitionSupported: true,
      synthesisSupported: false,
      listening: false,
      interim: "",
      error: "Microphone access was refused. Allow it in the browser, or switch to Text.",
      startListening: vi.fn(),
      stopListening: vi.fn(),
      speaking: false,
      speak: vi.fn(),
      stopSpeaking: vi.fn(),
    };
    const onSwitchToText = vi.fn();
    render(
      <VoicePanel
        speech={speech}
        language={null}
        onTranscript={vi.fn()}
        speakReplies
        onSpeakRepliesChange={vi.fn()}
        onSwitchToText={onSwitchToText}
      />,
    );
    expect(screen.getByRole("alert")).toHaveTextContent("Microphone access was refused");
    await userEvent.click(screen.getByRole("button", { name: "Switch to Text" }));
    expect(onSwitchToText).toHaveBeenCalledOnce();
  });
});
