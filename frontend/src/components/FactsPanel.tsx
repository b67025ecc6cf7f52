import { useCallback, useEffect, useState } from "react";

import type { ApiClient } from "../api/client";
import type { Fact } from "../api/models";

export interface FactsPanelProps {
  client: ApiClient;
  /** Open the conversation a fact came from, at the turn that stated it. */
  onOpenSource: (sessionId: string, entryId: string) => void;
  /** Changes when the facts may have changed (a turn stored, memory deleted). */
  version?: string | number;
}

/** Kinds in the order they are shown (what matters most for safety first). */
const KIND_ORDER = [
  "allergy",
  "medication",
  "condition",
  "diagnosis",
  "procedure",
  "appointment",
  "symptom",
  "preferred_name",
  "preferred_language",
  "care_instruction",
  "preference",
];

const KIND_TITLES: Record<string, string> = {
  allergy: "Allergies",
  medication: "Medications",
  condition: "Conditions",
  diagnosis: "Conditions",
  procedure: "Procedures",
  appointment: "Appointments",
  symptom: "Symptoms",
  preferred_name: "Preferred name",
  preferred_language: "Preferred language",
  care_instruction: "Care instructions",
  preference: "Preferences",
  pinned_entry: "Pinned",
  note: "Notes",
};

function title(kind: string): string {
  return KIND_TITLES[kind] ?? kind.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
}

/** The current facts grouped by kind (conditions pinned as diagnoses with the found ones), in order. */
export function groupFacts(facts: readonly Fact[]): { title: string; facts: Fact[] }[] {
  const groups = new Map<string, Fact[]>();
  for (const fact of facts) {
    const name = title(fact.kind);
    groups.set(name, [...(groups.get(name) ?? []), fact]);
  }
  const rank = (name: string) => {
    const at = KIND_ORDER.findIndex((kind) => title(kind) === name);
    return at < 0 ? KIND_ORDER.length : at;
  };
  return [...groups.entries()]
    .sort(([a], [b]) => rank(a) - rank(b))
    .map(([name, list]) => ({ title: name, facts: list }));
}

function day(iso: string | null): string {
  return iso ? iso.slice(0, 10) : "";
}

function FactItem({
  fact,
  history,
  client,
  onChanged,
  onOpenSource,
}: {
  fact: Fact;
  history: Fact[];
  client: ApiClient;
  onChanged: () => void;
  onOpenSource: (sessionId: string, entryId: string) => void;
}) {
  const [editing, setEditing] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const source = fact.source_entry_ids[0] ?? fact.entry_id;
  const act = (work: Promise<unknown>) =>
    work.then(onChanged).catch((exc: unknown) => setError(exc instanceof Error ? exc.message : String(exc)));
  const save = () => {
    if (editing === null || !editing.trim()) return;
    setEditing(null);
    act(client.correctFact(fact.id, { value: editing.trim() }));
  };
  return (
    <li className="fact" data-testid="fact" data-fact-id={fact.id} data-status={fact.status}>
      <span className="fact-text" data-testid="fact-text">
        {fact.text}
      </span>{" "}
      {fact.status !== "reported" ? (
        <span className={`badge badge-${fact.status}`} data-testid="fact-status">
          {fact.status}
        </span>
      ) : null}
      <div className="fact-actions">
        {source && fact.session_id ? (
          <button type="button" className="link" data-testid="fact-source" onClick={() => onOpenSource(fact.session_id ?? "", source)}>
            Said {day(fact.valid_from ?? fact.created_at)}
          </button>
        ) : null}
        {fact.status !== "confirmed" ? (
          <button type="button" data-testid="fact-confirm" onClick={() => act(client.confirmFact(fact.id))}>
            Confirm
          </button>
        ) : null}
        <button type="button" data-testid="fact-correct" onClick={() => setEditing(fact.value ?? fact.text)}>
          Correct
        </button>
        <button type="button" data-testid="fact-delete" onClick={() => act(client.deleteFact(fact.id))}>
          Delete
        </button>
      </div>
      {editing !== null ? (
        <form
          className="fact-edit"
          onSubmit={(event) => {
            event.preventDefault();
            save();
          }}
        >
          <label>
            Right value <input data-testid="fact-value" value={editing} onChange={(e) => setEditing(e.target.value)} />
          </label>
          <button type="submit" data-testid="fact-save">
            Save
          </button>
          <button type="button" onClick={() => setEditing(null)}>
            Cancel
          </button>
        </form>
      ) : null}
      {history.length > 0 ? (
        <ul className="fact-history" aria-label="Earlier values">
          {history.map((old) => (
            <li key={old.id} data-testid="fact-past">
              previously: {old.value ?? old.text} (until {day(old.valid_to)})
            </li>
          ))}
        </ul>
      ) : null}
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
    </li>
  );
}

/** "What unimem remembers": the caller's current facts by kind, each with the
 * turn it came from, its earlier values, and confirm / correct / delete. */
export function FactsPanel({ client, onOpenSource, version = 0 }: FactsPanelProps) {
  const [facts, setFacts] = useState<Fact[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);
  const reload = useCallback(() => setReloads((n) => n + 1), []);

  useEffect(() => {
    let live = true;
    client
      .listFacts(true)
      .then((all) => {
        if (!live) return;
        setFacts(all);
        setError(null);
      })
      .catch((exc: unknown) => live && setError(exc instanceof Error ? exc.message : String(exc)));
    return () => {
      live = false;
    };
  }, [client, version, reloads]);

  const current = (facts ?? []).filter((f) => f.valid_to === null);
  const past = (facts ?? []).filter((f) => f.valid_to !== null);
  const historyOf = (fact: Fact) => (fact.key === null ? [] : past.filter((old) => old.key === fact.key));
  return (
    <section className="panel facts" aria-label="What unimem remembers" data-testid="facts-panel">
      <h2>What unimem remembers</h2>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      {facts !== null && current.length === 0 ? <p className="hint">Nothing yet.</p> : null}
      {groupFacts(current).map((group) => (
        <div key={group.title} className="fact-group" data-testid="fact-group">
          <h3>{group.title}</h3>
          <ul>
            {group.facts.map((fact) => (
              <FactItem
                key={fact.id}
                fact={fact}
                history={historyOf(fact)}
                client={client}
                onChanged={reload}
                onOpenSource={onOpenSource}
              />
            ))}
          </ul>
        </div>
      ))}
    </section>
  );
}
