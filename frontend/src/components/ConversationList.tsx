import { useEffect, useRef, useState } from "react";

import type { ApiClient } from "../api/client";
import type { SessionInfo } from "../api/models";
import { firstWords, shortDate } from "../lib/conversations";
import { languageName } from "../lib/language";
import { KeyboardIcon, MicIcon } from "./icons";

export interface ConversationListProps {
  client: ApiClient;
  /** The conversation on screen (marked, and not offered as a switch). */
  currentId: string;
  onOpen: (sessionId: string) => void;
  /** Load the list again when this changes (a new conversation got its first message, a deletion). */
  version: string;
  /** Reports the first line of each conversation listed, for the header's label. */
  onFirstLines?: (lines: ReadonlyMap<string, string>) => void;
}

/**
 * The first message still stored in a conversation: the message numbered 1,
 * or (when that one was deleted or expired) the latest one.
 */
async function firstLine(client: ApiClient, sessionId: string): Promise<string> {
  const [first] = await client.getHistory(sessionId, 1, 2);
  if (first) return first.content;
  const [last] = await client.getHistory(sessionId, 1);
  return last?.content ?? "";
}

/** Past conversations, most recently active first: date, first line, modes and languages used. */
export function ConversationList({ client, currentId, onOpen, version, onFirstLines }: ConversationListProps) {
  const [sessions, setSessions] = useState<SessionInfo[] | null>(null);
  const [lines, setLines] = useState<ReadonlyMap<string, string>>(new Map());
  const [error, setError] = useState<string | null>(null);
  const report = useRef(onFirstLines);
  report.current = onFirstLines;

  useEffect(() => {
    let current = true;
    setError(null);
    client
      .listSessions(20)
      .then(async (page) => {
        if (!current) return;
        setSessions(page.sessions);
        const found = new Map<string, string>();
        await Promise.all(
          page.sessions
            .filter((s) => s.message_count > 0)
            .map(async (s) => {
              found.set(s.session_id, await firstLine(client, s.session_id).catch(() => ""));
            }),
        );
        if (!current) return;
        setLines(found);
        report.current?.(found);
      })
      .catch((exc: unknown) => current && setError(exc instanceof Error ? exc.message : String(exc)));
    return () => {
      current = false;
    };
  }, [client, version]);

  return (
    <section className="panel conversations" aria-labelledby="conversations-title">
      <h2 id="conversations-title">Conversations</h2>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      {sessions === null && !error ? <p className="hint">Loading conversations…</p> : null}
      {sessions !== null && sessions.length === 0 ? (
        <p className="hint">No past conversations yet.</p>
      ) : null}
      {sessions !== null && sessions.length > 0 ? (
        <ol className="conversation-list" data-testid="conversation-list">
          {sessions.map((s) => {
            const isCurrent = s.session_id === currentId;
            const line = lines.get(s.session_id);
            return (
              <li key={s.session_id}>
                <button
                  type="button"
                  className="conversation"
                  data-testid="conversation"
                  data-session-id={s.session_id}
                  aria-current={isCurrent ? "true" : undefined}
                  onClick={() => onOpen(s.session_id)}
                  title={`Conversation id ${s.session_id}`}
                >
                  <span className="conversation-date">
                    <time dateTime={s.started_at}>{shortDate(s.started_at)}</time>
                    {isCurrent ? <span className="badge">open</span> : null}
                  </span>
                  <span className="conversation-line" dir="auto" data-testid="conversation-line">
                    {line ? firstWords(line, 80) : s.message_count === 0 ? "(no messages)" : "…"}
                  </span>
                  <span className="conversation-meta">
                    {s.modes_used.map((mode) => (
                      <span key={mode} className={`badge badge-${mode}`} data-testid="conversation-mode">
                        {mode === "voice" ? <MicIcon /> : <KeyboardIcon />} {mode}
                      </span>
                    ))}
                    {s.languages_used.map((code) => (
                      <span key={code} className="badge badge-lang" title={languageName(code)} data-testid="conversation-language">
                        {languageName(code)}
                      </span>
                    ))}
                  </span>
                </button>
              </li>
            );
          })}
        </ol>
      ) : null}
    </section>
  );
}
