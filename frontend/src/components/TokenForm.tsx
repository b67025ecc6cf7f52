import { useState, type FormEvent } from "react";

export interface TokenFormProps {
  token: string | null;
  onToken: (token: string | null) => void;
  /** Why the saved token was refused, when it was. */
  error?: string | null;
}

/**
 * Shown when the server has auth on: paste a token from `unimem token --user NAME`.
 * In local mode the server needs none and this never appears.
 */
export function TokenForm({ token, onToken, error = null }: TokenFormProps) {
  const [value, setValue] = useState(token ?? "");
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    onToken(value.trim() || null);
  };
  return (
    <form className="token-form panel" onSubmit={onSubmit} aria-labelledby="token-title">
      <h2 id="token-title">Sign in</h2>
      <p>
        This server requires a token. Ask its operator, or run{" "}
        <code>unimem token --user YOUR_NAME</code> on it.
      </p>
      {error ? (
        <p className="error" role="alert" data-testid="token-error">
          The server did not accept this token ({error}). Paste a valid one, or forget it.
        </p>
      ) : null}
      <label htmlFor="token">Access token</label>
      <input
        id="token"
        type="password"
        autoComplete="off"
        value={value}
        onChange={(e) => setValue(e.target.value)}
      />
      <div className="row">
        <button type="submit" className="primary" disabled={!value.trim()}>
          Use token
        </button>
        {token ? (
          <button type="button" onClick={() => onToken(null)}>
            Forget token
          </button>
        ) : null}
      </div>
    </form>
  );
}
