/**
 * Voice input and output through the browser's Web Speech API.
 *
 * Recognition (`SpeechRecognition`, prefixed `webkitSpeechRecognition` in
 * Chromium) turns speech into transcripts; synthesis (`speechSynthesis`)
 * reads replies aloud. Either may be missing: the hook says which, and the UI
 * stays usable by typing.
 */

import { useCallback, useEffect, useRef, useState } from "react";

/** The subset of the Web Speech recognition API the UI uses. */
export interface RecognitionLike {
  lang: string;
  interimResults: boolean;
  continuous: boolean;
  maxAlternatives: number;
  onresult: ((event: RecognitionResultEvent) => void) | null;
  onerror: ((event: { error: string }) => void) | null;
  onend: (() => void) | null;
  start: () => void;
  stop: () => void;
  abort: () => void;
}

export interface RecognitionResultEvent {
  resultIndex: number;
  results: ArrayLike<{ isFinal: boolean; 0: { transcript: string } }>;
}

type RecognitionCtor = new () => RecognitionLike;

/** The browser's recognition constructor, if it has one. */
export function recognitionCtor(scope: object = globalThis): RecognitionCtor | null {
  const s = scope as { SpeechRecognition?: RecognitionCtor; webkitSpeechRecognition?: RecognitionCtor };
  return s.SpeechRecognition ?? s.webkitSpeechRecognition ?? null;
}

export interface SpeakResult {
  /** What was read aloud before it stopped: all of it unless interrupted. */
  heard: string;
  interrupted: boolean;
}

export interface Speech {
  recognitionSupported: boolean;
  synthesisSupported: boolean;
  listening: boolean;
  /** Words recognised so far in the current utterance. */
  interim: string;
  error: string | null;
  /** Listen for one utterance; `onTranscript` gets the final text. */
  startListening: (language: string | null, onTranscript: (text: string) => void) => void;
  stopListening: () => void;
  speaking: boolean;
  /** Read `text` aloud; resolves when it ends or is cut off by `stopSpeaking`. */
  speak: (text: string, language: string | null) => Promise<SpeakResult>;
  stopSpeaking: () => void;
}

// Shown in voice mode, where there is no text box: the panel offers the switch to Text.
const ERROR_TEXT: Record<string, string> = {
  "not-allowed": "Microphone access was refused. Allow it in the browser, or switch to Text.",
  "service-not-allowed": "Speech recognition is not allowed here. Switch to Text to keep going.",
  "no-speech": "No speech was heard. Try again.",
  "audio-capture": "No microphone was found. Switch to Text to keep going.",
  network: "The speech recognition service could not be reached. Switch to Text to keep going.",
};

/** The spoken prefix of `text` up to the end of the word at `charIndex`. */
export function heardPrefix(text: string, charIndex: number): string {
  if (charIndex <= 0) return "";
  const rest = text.slice(charIndex);
  const wordEnd = rest.search(/\s/);
  return text.slice(0, wordEnd === -1 ? text.length : charIndex + wordEnd).trim();
}

export function useSpeech(): Speech {
  const Ctor = recognitionCtor();
  const synthesis: SpeechSynthesis | null =
    typeof globalThis.speechSynthesis !== "undefined" ? globalThis.speechSynthesis : null;
  const [listening, setListening] = useState(false);
  const [interim, setInterim] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [speaking, setSpeaking] = useState(false);
  const recognition = useRef<RecognitionLike | null>(null);
  const utterance = useRef<{ text: string; at: number; finish: (r: SpeakResult) => void } | null>(
    null,
  );

  const stopListening = useCallback(() => {
    recognition.current?.stop();
  }, []);

  const startListening = useCallback(
    (language: string | null, onTranscript: (text: string) => void) => {
      if (!Ctor) {
        setError("This browser has no speech recognition. Switch to Text to type your message.");
        return;
      }
      recognition.current?.abort();
      const rec = new Ctor();
      rec.lang = language ?? globalThis.navigator?.language ?? "en-US";
      rec.interimResults = true;
      rec.continuous = false;
      rec.maxAlternatives = 1;
      rec.onresult = (event) => {
        let partial = "";
        for (let i = event.resultIndex; i < event.results.length; i += 1) {
          const result = event.results[i];
          if (!result) continue;
          const text = result[0].transcript;
          if (result.isFinal) {
            setInterim("");
            if (text.trim()) onTranscript(text.trim());
          } else {
            partial += text;
          }
        }
        if (partial) setInterim(partial);
      };
      rec.onerror = (event) => {
        setError(ERROR_TEXT[event.error] ?? `Speech recognition failed (${event.error}).`);
      };
      rec.onend = () => {
        if (recognition.current === rec) recognition.current = null;
        setListening(false);
        setInterim("");
      };
      recognition.current = rec;
      setError(null);
      setListening(true);
      try {
        rec.start();
      } catch (exc) {
        setListening(false);
        setError(`Speech recognition could not start (${exc instanceof Error ? exc.message : exc}).`);
      }
    },
    [Ctor],
  );

  const stopSpeaking = useCallback(() => {
    const current = utterance.current;
    if (!current || !synthesis) return;
    utterance.current = null;
    synthesis.cancel();
    current.finish({ heard: heardPrefix(current.text, current.at), interrupted: true });
  }, [synthesis]);

  const speak = useCallback(
    (text: string, language: string | null): Promise<SpeakResult> =>
      new Promise<SpeakResult>((resolve) => {
        if (!synthesis || typeof SpeechSynthesisUtterance === "undefined") {
          resolve({ heard: "", interrupted: false });
          return;
        }
        const u = new SpeechSynthesisUtterance(text);
        if (language) u.lang = language;
        const record = {
          text,
          at: 0,
          finish: (result: SpeakResult) => {
            setSpeaking(false);
            resolve(result);
          },
        };
        u.onboundary = (event) => {
          record.at = event.charIndex;
        };
        u.onend = () => {
          if (utterance.current !== record) return;
          utterance.current = null;
          record.finish({ heard: text, interrupted: false });
        };
        u.onerror = () => {
          if (utterance.current !== record) return;
          utterance.current = null;
          record.finish({ heard: heardPrefix(text, record.at), interrupted: true });
        };
        utterance.current = record;
        setSpeaking(true);
        synthesis.speak(u);
      }),
    [synthesis],
  );

  useEffect(
    () => () => {
      recognition.current?.abort();
      if (utterance.current) synthesis?.cancel();
    },
    [synthesis],
  );

  return {
    recognitionSupported: Ctor !== null,
    synthesisSupported: synthesis !== null,
    listening,
    interim,
    error,
    startListening,
    stopListening,
    speaking,
    speak,
    stopSpeaking,
  };
}
