import type { Speech } from "../hooks/useSpeech";
import { MicIcon, StopIcon } from "./icons";

export interface VoicePanelProps {
  speech: Speech;
  language: string | null;
  onTranscript: (text: string) => void;
  /** Read replies aloud. */
  speakReplies: boolean;
  onSpeakRepliesChange: (value: boolean) => void;
  /** Called when the user starts talking: cuts off a reply still streaming. */
  onBargeIn?: () => void;
  /** Switch the conversation to typing (offered when voice cannot work). */
  onSwitchToText?: () => void;
}

function SwitchToText({ onSwitchToText }: { onSwitchToText?: () => void }) {
  return onSwitchToText ? (
    <button type="button" onClick={onSwitchToText}>
      Switch to Text
    </button>
  ) : null;
}

/**
 * Voice input: press to talk, see the words as they are recognised, the
 * final transcript is stored as a voice message. Without browser support it
 * says so and points back to typing.
 */
export function VoicePanel({
  speech,
  language,
  onTranscript,
  speakReplies,
  onSpeakRepliesChange,
  onBargeIn,
  onSwitchToText,
}: VoicePanelProps) {
  if (!speech.recognitionSupported) {
    return (
      <div className="voice-panel" role="status" data-testid="voice-unsupported">
        <p>
          This browser has no speech recognition, so voice input is unavailable here. Switch to
          Text to keep the conversation going; it stays one conversation.
        </p>
        <SwitchToText onSwitchToText={onSwitchToText} />
      </div>
    );
  }
  const talk = () => {
    // Barge-in: talking over a reply stops it, and what was heard is kept.
    if (speech.speaking) speech.stopSpeaking();
    onBargeIn?.();
    if (speech.listening) speech.stopListening();
    else speech.startListening(language, onTranscript);
  };
  return (
    <div className="voice-panel">
      <button
        type="button"
        className={`talk primary${speech.listening ? " listening" : ""}`}
        aria-pressed={speech.listening}
        onClick={talk}
      >
        {speech.listening ? <StopIcon /> : <MicIcon />}{" "}
        {speech.listening ? "Stop listening" : "Press to talk"}
      </button>
      <p className="interim" aria-live="polite" dir="auto" data-testid="interim">
        {speech.listening ? speech.interim || "Listening…" : ""}
      </p>
      {speech.speaking ? (
        <button type="button" onClick={speech.stopSpeaking}>
          Stop reading
        </button>
      ) : null}
      <label className="check">
        <input
          type="checkbox"
          checked={speakReplies}
          disabled={!speech.synthesisSupported}
          onChange={(e) => onSpeakRepliesChange(e.target.checked)}
        />{" "}
        Read replies aloud{speech.synthesisSupported ? "" : " (not supported by this browser)"}
      </label>
      {speech.error ? (
        <div className="voice-error">
          <p className="error" role="alert">
            {speech.error}
          </p>
          <SwitchToText onSwitchToText={onSwitchToText} />
        </div>
      ) : null}
    </div>
  );
}
