import { useState, type FormEvent, type KeyboardEvent } from "react";

import { textDir } from "../lib/language";

export interface ChatInputProps {
  onSend: (content: string) => Promise<unknown>;
  language: string | null;
  disabled?: boolean;
  /** Called on every keystroke: typing over a spoken or streaming reply cuts it off. */
  onTyping?: () => void;
}

/** The typing box. Enter sends, Shift+Enter makes a new line. */
export function ChatInput({ onSend, language, disabled = false, onTyping }: ChatInputProps) {
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);

  const send = async () => {
    const content = text.trim();
    if (!content || busy) return;
    setBusy(true);
    try {
      await onSend(content);
      setText("");
    } catch {
      // The hook shows the error; the text stays so nothing typed is lost.
    } finally {
      setBusy(false);
    }
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void send();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  };

  return (
    <form className="chat-input" onSubmit={onSubmit}>
      <label htmlFor="message" className="visually-hidden">
        Message
      </label>
      <textarea
        id="message"
        rows={2}
        value={text}
        dir={textDir(language)}
        lang={language ?? undefined}
        placeholder="Type a message…"
        onChange={(e) => {
          setText(e.target.value);
          onTyping?.();
        }}
        onKeyDown={onKeyDown}
        disabled={disabled}
      />
      <button type="submit" className="primary" disabled={disabled || busy || !text.trim()}>
        Send
      </button>
    </form>
  );
}
