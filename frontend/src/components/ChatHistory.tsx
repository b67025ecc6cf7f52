import { useEffect, useRef } from "react";

import type { MemoryEntry, MemoryEvent } from "../api/models";
import { isRtl, languageName, textDir } from "../lib/language";
import type { TimelineItem } from "../lib/timeline";
import { KeyboardIcon, MicIcon } from "./icons";

export interface ChatHistoryProps {
  timeline: TimelineItem[];
  loading?: boolean;
  /** Offer to load older messages, calling this. */
  onLoadEarlier?: () => void;
  /** Scroll to this message and mark it (a search hit opened here). */
  focusId?: string | null;
}

function entryLanguage(entry: MemoryEntry): string | null {
  return entry.language ?? entry.detected_language ?? null;
}

function timeOf(value: string | null): string {
  if (!value) return "";
  const date = new Date(value);
  return Number.isNaN(date.getTime())
    ? ""
    : date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

function sourceLabel(source: Record<string, unknown>, index: number): string {
  for (const key of ["title", "name", "source", "url", "id"]) {
    const value = source[key];
    if (typeof value === "string" && value) return value;
  }
  return `Source ${index + 1}`;
}

/** What the user heard of an interrupted answer, and what was generated. */
function interruption(entry: MemoryEntry): { interrupted: boolean; full: string | null } {
  const meta = entry.metadata;
  const interrupted = meta.interrupted === true;
  const fullKey = ["full_text", "generated_text", "original_content", "full_content"].find(
    (key) => typeof meta[key] === "string",
  );
  return { interrupted, full: fullKey ? (meta[fullKey] as string) : null };
}

function Sources({ entry }: { entry: MemoryEntry }) {
  const count = Math.max(entry.sources.length, entry.retrieved_passages.length);
  if (count === 0) return null;
  return (
    <details className="sources">
      <summary>
        {count} source{count === 1 ? "" : "s"}
      </summary>
      <ol>
        {Array.from({ length: count }, (_, i) => {
          const source = entry.sources[i];
          const passage = entry.retrieved_passages[i];
          const url = source && typeof source.url === "string" ? source.url : null;
          const label = source ? sourceLabel(source, i) : `Passage ${i + 1}`;
          return (
            <li key={i}>
              {url ? (
                <a href={url} target="_blank" rel="noreferrer noopener">
                  {label}
                </a>
              ) : (
                <strong>{label}</strong>
              )}
              {passage ? (
                <blockquote dir="auto" className="passage">
                  {passage}
                </blockquote>
              ) : null}
            </li>
          );
        })}
      </ol>
    </details>
  );
}

function Message({ entry, focused = false }: { entry: MemoryEntry; focused?: boolean }) {
  const language = entryLanguage(entry);
  const { interrupted, full } = interruption(entry);
  const sending = entry.metadata.sending === true;
  return (
    <li
      className={`message role-${entry.role} mode-${entry.mode}${sending ? " sending" : ""}${focused ? " focused" : ""}`}
      data-testid="message"
      data-focused={focused || undefined}
      aria-current={focused || undefined}
      data-entry-id={entry.id}
      data-mode={entry.mode}
      data-role={entry.role}
      aria-busy={sending || undefined}
    >
      <div className="meta">
        <span className="role">{entry.role === "user" ? "You" : entry.role === "assistant" ? "Assistant" : "System"}</span>
        <span className={`badge badge-${entry.mode}`} data-testid="mode-badge" title={`Sent by ${entry.mode}`}>
          {entry.mode === "voice" ? <MicIcon /> : <KeyboardIcon />} {entry.mode}
        </span>
        {language ? (
          <span className="badge badge-lang" data-testid="language-badge" title={languageName(language)}>
            {language}
          </span>
        ) : null}
        {entry.phi_detected ? (
          <span
            className="badge badge-phi"
            data-testid="phi-badge"
            title="Protected health information was detected in this message and redacted before it was stored"
          >
            PHI redacted
          </span>
        ) : null}
        {interrupted ? (
          <span className="badge badge-interrupted" title="The spoken answer was cut off; this is what was heard">
            interrupted
          </span>
        ) : null}
        <time dateTime={entry.timestamp ?? undefined}>{sending ? "sending…" : timeOf(entry.timestamp)}</time>
      </div>
      <p
        className="content"
        dir={textDir(language)}
        lang={language ?? undefined}
        data-testid="message-content"
        style={isRtl(language) ? { textAlign: "right" } : undefined}
      >
        {entry.content}
        {interrupted ? <span className="cut" aria-label="(cut off)"> …</span> : null}
      </p>
      {interrupted && full && full !== entry.content ? (
        <details className="full-answer">
          <summary>Full generated answer (not heard)</summary>
          <p dir={textDir(language)}>{full}</p>
        </details>
      ) : null}
      {entry.role === "assistant" ? <Sources entry={entry} /> : null}
    </li>
  );
}

function markerText(event: MemoryEvent): string {
  const d = event.data;
  if (event.event_type === "mode_switch") {
    const to = d.to_mode === "voice" ? "voice" : "text";
    return `Switched to ${to}${typeof d.from_mode === "string" ? ` from ${d.from_mode}` : ""}`;
  }
  if (event.event_type === "language_switch") {
    const to = typeof d.to_language === "string" ? languageName(d.to_language) : "another language";
    const from = typeof d.from_language === "string" ? languageName(d.from_language) : null;
    const trigger = typeof d.trigger === "string" ? ` (${d.trigger.replace(/_/g, " ")})` : "";
    return `Language: ${from ? `${from} → ` : ""}${to}${trigger}`;
  }
  if (event.event_type === "session_closed") return "Conversation closed";
  return event.event_type.replace(/_/g, " ");
}

function Marker({ event }: { event: MemoryEvent }) {
  return (
    <li className={`marker marker-${event.event_type}`} data-testid="marker" data-event-type={event.event_type}>
      <span>{markerText(event)}</span>
    </li>
  );
}

/** The conversation: messages with mode and language badges, and switch markers between them. */
export function ChatHistory({ timeline, loading = false, onLoadEarlier, focusId = null }: ChatHistoryProps) {
  const end = useRef<HTMLLIElement | null>(null);
  const list = useRef<HTMLOListElement | null>(null);
  const focusShown = focusId !== null && timeline.some((i) => i.kind === "entry" && i.entry.id === focusId);

  useEffect(() => {
    if (focusShown) return; // the focused message keeps the view
    end.current?.scrollIntoView?.({ block: "end" });
  }, [timeline.length, focusShown]);
  useEffect(() => {
    if (!focusShown || focusId === null) return;
    const items = Array.from(list.current?.querySelectorAll("[data-entry-id]") ?? []);
    const item = items.find((el) => el.getAttribute("data-entry-id") === focusId);
    item?.scrollIntoView?.({ block: "center" });
  }, [focusShown, focusId]);

  if (!loading && timeline.length === 0) {
    return (
      <div className="history empty" data-testid="history-empty">
        <p>No messages yet. Type below, or switch to Voice and speak.</p>
      </div>
    );
  }
  return (
    <ol ref={list} className="history" role="log" aria-live="polite" aria-label="Conversation" aria-busy={loading}>
      {onLoadEarlier ? (
        <li className="earlier">
          <button type="button" onClick={onLoadEarlier}>
            Load earlier messages
          </button>
        </li>
      ) : null}
      {timeline.map((item) =>
        item.kind === "entry" ? (
          <Message key={item.key} entry={item.entry} focused={item.entry.id === focusId} />
        ) : (
          <Marker key={item.key} event={item.event} />
        ),
      )}
      <li ref={end} aria-hidden="true" className="end" />
    </ol>
  );
}
