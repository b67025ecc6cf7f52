import { useEffect, useState } from "react";

import type { ApiClient } from "../api/client";
import type { DeleteScope, DeletionReceipt, MemorySettings } from "../api/models";

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
  { scope: "all", label: "Everything", confirm: "Delete all of your memory, in every conversation?" },
];

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
    setError(null);
    try {
      setSettings(await client.putSettings(next));
      setSaved("Saved");
    } catch (exc) {
      setError(exc instanceof Error ? exc.message : String(exc));
    }
  };

  const remove = async () => {
    setConfirming(false);
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
  const total = receipt ? Object.values(receipt.counts).reduce((a, b) => a + b, 0) : 0;

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
              min={1}
              max={36500}
              value={settings.retention_days}
              onChange={(e) => {
                const days = Number(e.target.value);
                if (Number.isInteger(days) && days >= 1 && days <= 36500) {
                  void save({ ...settings, retention_days: days });
                }
              }}
              aria-label="Retention in days"
            />{" "}
            days
          </label>
          <span className="hint" role="status">
            {saved}
          </span>
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
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            Delete…
          </button>
        )}
        {receipt ? (
          <p role="status" data-testid="deletion-receipt">
            Deleted {total} item{total === 1 ? "" : "s"} ({receipt.scope}).
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
