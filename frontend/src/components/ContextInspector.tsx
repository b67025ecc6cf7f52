import { useState, type FormEvent } from "react";

import type { LlmContext } from "../api/models";

export interface ContextInspectorProps {
  inspect: (query: string) => Promise<LlmContext>;
  /** Pre-filled query: usually the last thing the user said. */
  defaultQuery: string;
  /** The server's assistant answers turns (the panel then shows what it is sent). */
  llmConnected?: boolean;
}

/**
 * Exactly what would be sent to the LLM for the next turn (system prompt,
 * summary, pinned facts, history, the query) and its token count: the
 * assistant's view of this conversation when no LLM is configured.
 */
export function ContextInspector({ inspect, defaultQuery, llmConnected = false }: ContextInspectorProps) {
  const [query, setQuery] = useState<string | null>(null);
  const [result, setResult] = useState<LlmContext | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const current = query ?? defaultQuery;

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setResult(await inspect(current));
    } catch (exc) {
      setError(exc instanceof Error ? exc.message : String(exc));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="panel inspector" aria-labelledby="inspector-title">
      <h2 id="inspector-title">LLM context</h2>
      <p className="hint">
        {llmConnected
          ? "What the assistant is sent for a question, built from this conversation."
          : "No LLM is connected: this is what one would receive."}
      </p>
      <form onSubmit={onSubmit}>
        <label htmlFor="inspect-query">Next question</label>
        <input
          id="inspect-query"
          dir="auto"
          value={current}
          onChange={(e) => setQuery(e.target.value)}
        />
        <button type="submit" disabled={busy}>
          {busy ? "Building…" : "Show context"}
        </button>
      </form>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      {result ? (
        <div data-testid="llm-context">
          <p>
            <strong data-testid="token-count">{result.token_count}</strong> tokens,{" "}
            {result.messages.length} messages
            {result.degradations.length ? ` · degraded: ${result.degradations.join(", ")}` : ""}
          </p>
          <ol className="llm-messages">
            {result.messages.map((m, i) => {
              // Chat messages as the LLM gets them: role and content strings.
              const role = String(m.role ?? "");
              return (
                <li key={i} className={`llm-${role}`}>
                  <span className="badge">{role}</span>
                  <pre dir="auto">{String(m.content ?? "")}</pre>
                </li>
              );
            })}
          </ol>
        </div>
      ) : null}
    </section>
  );
}
