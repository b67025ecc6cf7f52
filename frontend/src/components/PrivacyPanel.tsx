import { useEffect, useState } from "react";

import type { ApiClient } from "../api/client";
import type { DeleteScope, DeletionReceipt, MemorySettings } from "../api/models";
import { deletionSummary } from "../lib/receipt";

export interface PrivacyPanelProps {
  client: ApiClient;
  /** Deletes through the conversation hook so the history on screen follows. */
  onDelete: (scope: DeleteScope) => Promise<DeletionReceipt>;
}

const TOGGLES: { key: Exclude<keyof MemorySettings, "retention_days">; label: string; hint: string }[] = [
  { key: "enabled", label: "Remember conversations", hint: "Off: nothing new is stored." },
  { key: "cross_session", label: "Use earlier conversations", hint: "Facts from past sessions inform new ones." },
  { key: "save_voice_transcripts", label: "Keep voice transcripts", hint: "Off: spoken turns are not stored as text." },
  { key: "save_rag_context", label: "Keep retrieved sources", hint: "Passages behind answers are stored with them." },
  { key: "anonymize_phi", label: "Redact health information", hint: "Names, numbers and other identifiers are removed before storing." },
];

const SCOPES: { scope: DeleteScope; label: string; confirm: string }[] = [
  { scope: "session", label: "This conversation", confirm: "Delete this conversation from memory?" },
  { scope: "day", label: "Today", confirm: "Delete everything remembered from today?" },
  {
    scope: "all",
    label: "Everything",
    confirm:
      "Delete all of your memory, in every conversation? Kept: your settings, and the log of " +
      "deletions and settings changes (ids and counts only, never what was said).",
  },
];

const MIN_DAYS = 1;
const MAX_DAYS = 36500;

/** The retention typed in the field, or null when it is not a whole number of days in range. */
function parseDays(text: string): number | null {
  if (!/^\d+$/.test(text.trim())) return null;
  const days = Number(text);
  return days >= MIN_DAYS && days <= MAX_DAYS ? days : null;
}

function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The six memory settings, deletion with its three scopes, and export. */
export function PrivacyPanel({ client, onDelete }: PrivacyPanelProps) {
  const [settings, setSettings] = useState<MemorySettings | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [scope, setScope] = useState<DeleteScope>("session");
  const [confirming, setConfirming] = useState(false);
  const [receipt, setReceipt] = useState<DeletionReceipt | null>(null);
  // The retention field as typed, kept (and flagged) when it is not valid.
  const [days, setDays] = useState<string | null>(null);
  const daysInvalid = days !== null && parseDays(days) === null;

  useEffect(() => {
    let live = true;
    client
      .getSettings()
      .then((s) => live && setSettings(s))
      .catch((exc: unknown) => live && setError(exc instanceof Error ? exc.message : String(exc)));
    return () => {
      live = false;
    };
  }, [client]);

  const save = async (next: MemorySettings) => {
    setSettings(next);
    setSaved(null);
    setReceipt(null);
    setError(null);
    try {
      setSettings(await client.putSettings(next));
      setSaved("Settings saved.");
    } catch (exc) {
      setError(exc instanceof Error ? exc.message : String(exc));
    }
  };

  const remove = async () => {
    setConfirming(false);
    setSaved(null);
    setError(null);
    try {
      setReceipt(await onDelete(scope));
    } catch (exc) {
      setError(exc instanceof Error ? exc.message : String(exc));
    }
  };

  const exportAll = async () => {
    setError(null);
    try {
      download(await client.exportMemory(), `unimem-export-${new Date().toISOString().slice(0, 10)}.json`);
    } catch (exc) {
      setError(exc instanceof Error ? exc.message : String(exc));
    }
  };

  const chosen = SCOPES.find((s) => s.scope === scope) ?? SCOPES[0]!;

  return (
    <section className="panel privacy" aria-labelledby="privacy-title">
      <h2 id="privacy-title">Memory &amp; privacy</h2>
      {settings ? (
        <fieldset>
          <legend>Settings</legend>
          {TOGGLES.map((t) => (
            <label key={t.key} className="check" title={t.hint}>
              <input
                type="checkbox"
                checked={settings[t.key]}
                onChange={(e) => void save({ ...settings, [t.key]: e.target.checked })}
              />{" "}
              {t.label}
            </label>
          ))}
          <label className="retention">
            Keep for{" "}
            <input
              type="number"
              min={MIN_DAYS}
              max={MAX_DAYS}
              value={days ?? String(settings.retention_days)}
              onChange={(e) => {
                setDays(e.target.value);
                const valid = parseDays(e.target.value);
                if (valid !== null) void save({ ...settings, retention_days: valid });
              }}
              onBlur={() => {
                if (!daysInvalid) setDays(null);
              }}
              aria-label="Retention in days"
              aria-invalid={daysInvalid || undefined}
              aria-describedby={daysInvalid ? "retention-problem" : undefined}
            />{" "}
            days
          </label>
          {daysInvalid ? (
            <p id="retention-problem" className="error field-problem" role="alert">
              Keep for {MIN_DAYS} to {MAX_DAYS} days (a whole number). Not saved.
            </p>
          ) : null}
          <p className="hint status" role="status" data-testid="settings-status">
            {saved}
          </p>
        </fieldset>
      ) : (
        <p className="hint">Loading settings…</p>
      )}

      <fieldset>
        <legend>Delete my memory</legend>
        {SCOPES.map((s) => (
          <label key={s.scope} className="check">
            <input
              type="radio"
              name="delete-scope"
              value={s.scope}
              checked={scope === s.scope}
              onChange={() => {
                setScope(s.scope);
                setConfirming(false);
                setReceipt(null);
              }}
            />{" "}
            {s.label}
          </label>
        ))}
        {confirming ? (
          <div role="alertdialog" aria-labelledby="confirm-text" className="confirm">
            <p id="confirm-text">{chosen.confirm} This cannot be undone.</p>
            <div className="row">
              <button type="button" className="danger" onClick={() => void remove()} autoFocus>
                Yes, delete
              </button>
              <button type="button" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </div>
          </div>
        ) : (
          <button
            type="button"
            className="danger"
            onClick={() => {
              // The last deletion's result does not stay under the next question.
              setReceipt(null);
              setSaved(null);
              setConfirming(true);
            }}
          >
            Delete…
          </button>
        )}
        {receipt ? (
          <p role="status" data-testid="deletion-receipt">
            {deletionSummary(receipt)}
          </p>
        ) : null}
      </fieldset>

      <button type="button" onClick={() => void exportAll()}>
        Export my data
      </button>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}
