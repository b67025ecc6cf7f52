import { type FormEvent, useState } from "react";

import type { ApiClient } from "../api/client";
import type { MemoryHit } from "../api/models";
import { firstWords, shortDate } from "../lib/conversations";
import { languageName, textDir } from "../lib/language";
import { KeyboardIcon, MicIcon } from "./icons";

export interface MemorySearchProps {
  client: ApiClient;
  /** Open conversation `sessionId` at the turn `entryId` (null: a summary's session, from its start). */
  onOpenAt: (sessionId: string, entryId: string | null) => void;
}

/** How many hits one search shows. */
const HITS = 20;

function hitLanguage(hit: MemoryHit): string | null {
  return hit.entry?.language ?? hit.entry?.detected_language ?? null;
}

/** One found turn: when, how and in which language it was said, and its words. */
function Hit({ hit, onOpenAt }: { hit: MemoryHit; onOpenAt: MemorySearchProps["onOpenAt"] }) {
  const language = hitLanguage(hit);
  const mode = hit.entry?.mode ?? null;
  const body = (
    <>
      <span className="search-hit-meta">
        <time dateTime={hit.timestamp ?? undefined} data-testid="search-hit-date">
          {shortDate(hit.timestamp) || "undated"}
        </time>
        {mode ? (
          <span className={`badge badge-${mode}`} data-testid="search-hit-mode">
            {mode === "voice" ? <MicIcon /> : <KeyboardIcon />} {mode}
          </span>
        ) : (
          <span className="badge" data-testid="search-hit-kind">
            {hit.kind === "fact" ? "pinned fact" : "summary"}
          </span>
        )}
        {language ? (
          <span className="badge badge-lang" title={languageName(language)} data-testid="search-hit-language">
            {languageName(language)}
          </span>
        ) : null}
      </span>
      <span className="search-hit-snippet" dir={textDir(language)} data-testid="search-hit-snippet">
        {firstWords(hit.snippet, 160)}
      </span>
    </>
  );
  const sessionId = hit.session_id ?? null;
  return (
    <li>
      {sessionId ? (
        <button
          type="button"
          className="search-hit"
          data-testid="search-hit"
          data-session-id={sessionId}
          onClick={() => onOpenAt(sessionId, hit.kind === "entry" ? hit.id : null)}
          title="Open this conversation at this turn"
        >
          {body}
        </button>
      ) : (
        <div className="search-hit" data-testid="search-hit">
          {body}
        </div>
      )}
    </li>
  );
}

/** A search box over every past conversation; a hit opens its conversation at that turn. */
export function MemorySearch({ client, onOpenAt }: MemorySearchProps) {
  const [query, setQuery] = useState("");
  const [hits, setHits] = useState<MemoryHit[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const search = async (event: FormEvent) => {
    event.preventDefault();
    const words = query.trim();
    if (!words) return;
    setBusy(true);
    setError(null);
    try {
      setHits((await client.searchMemory(words, { k: HITS })).hits);
    } catch (exc) {
      setHits(null);
      setError(exc instanceof Error ? exc.message : String(exc));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="panel memory-search" aria-labelledby="memory-search-title">
      <h2 id="memory-search-title">Search past conversations</h2>
      <form role="search" onSubmit={(e) => void search(e)}>
        <input
          type="search"
          aria-label="Search past conversations"
          placeholder="e.g. what the cardiologist said"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          maxLength={1000}
          dir="auto"
        />
        <button type="submit" disabled={busy || !query.trim()}>
          {busy ? "Searching…" : "Search"}
        </button>
      </form>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      {hits !== null && hits.length === 0 ? (
        <p className="hint" data-testid="search-empty">
          Nothing found.
        </p>
      ) : null}
      {hits !== null && hits.length > 0 ? (
        <ol className="search-hits" data-testid="search-hits" aria-label="Search results">
          {hits.map((hit) => (
            <Hit key={`${hit.kind}:${hit.session_id ?? ""}:${hit.id}`} hit={hit} onOpenAt={onOpenAt} />
          ))}
        </ol>
      ) : null}
    </section>
  );
}
