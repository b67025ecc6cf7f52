/**
 * Which conversation this page shows.
 *
 * The id lives in the URL (`?session=`), so a refresh or a second tab opened
 * on the same address shows the same conversation, and is remembered in
 * localStorage so opening the bare address resumes the last one. Only the id
 * is kept in the browser; the conversation itself lives on the server.
 */

const STORAGE_KEY = "unimem.session";
const ID_RE = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;

/** A fresh session id the server accepts (letters, digits, `-`). */
export function newSessionId(): string {
  const random =
    typeof crypto !== "undefined" && "randomUUID" in crypto
      ? crypto.randomUUID()
      : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  return `web-${random}`;
}

function storage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // disabled storage (privacy mode): the URL still carries the id
  }
}

/** Put `id` in the address bar and in localStorage. */
export function rememberSessionId(id: string): void {
  storage()?.setItem(STORAGE_KEY, id);
  const url = new URL(globalThis.location.href);
  if (url.searchParams.get("session") !== id) {
    url.searchParams.set("session", id);
    globalThis.history.replaceState(null, "", url.toString());
  }
}

/** The session in the URL, else the last one used here, else a new one. */
export function resolveSessionId(): string {
  const fromUrl = new URL(globalThis.location.href).searchParams.get("session");
  const candidate = fromUrl ?? storage()?.getItem(STORAGE_KEY) ?? null;
  const id = candidate && ID_RE.test(candidate) ? candidate : newSessionId();
  rememberSessionId(id);
  return id;
}

const TOKEN_KEY = "unimem.token";

/** The saved bearer token (auth mode), if any. */
export function loadToken(): string | null {
  return storage()?.getItem(TOKEN_KEY) ?? null;
}

export function saveToken(token: string | null): void {
  const store = storage();
  if (!store) return;
  if (token) store.setItem(TOKEN_KEY, token);
  else store.removeItem(TOKEN_KEY);
}
