/**
 * A small typed client of the unimem HTTP API (`/v1`).
 *
 * Every method resolves to the server's JSON or rejects with an `ApiError`
 * carrying the HTTP status and the server's error code and field, so the UI
 * can tell "log in" (401) from "fix this field" (422) from "server down".
 */

import type {
  ConversationContext,
  DeleteScope,
  DeletionReceipt,
  LlmContext,
  LlmContextRequest,
  MemoryEntry,
  MemoryEvent,
  MemorySettings,
  Mode,
  NewEntry,
  ReplyRequest,
  ServerConfig,
  SwitchTrigger,
} from "./types";

/** One Server-Sent Events block (`event: x` / `data: {...}` lines); null if it has no data. */
export function parseSseBlock(block: string): { event: string; data: Record<string, unknown> } | null {
  let event = "message";
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
  }
  if (data.length === 0) return null;
  try {
    const parsed: unknown = JSON.parse(data.join("\n"));
    return parsed && typeof parsed === "object" ? { event, data: parsed as Record<string, unknown> } : null;
  } catch {
    return null;
  }
}

/** An HTTP error answered by the server, or a network failure (status 0). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | null;

  constructor(status: number, code: string, message: string, field: string | null = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

export interface ApiClientOptions {
  /** Origin (and prefix) of the server; "" means the page's own origin. */
  baseUrl?: string;
  /** The bearer token to send, or null in local mode. Read on every call. */
  getToken?: () => string | null;
  /** Injected in unit tests. */
  fetchImpl?: typeof fetch;
}

function enc(value: string): string {
  return encodeURIComponent(value);
}

/** Pull code/message/field out of the server's error body, whatever its nesting. */
async function toApiError(response: Response): Promise<ApiError> {
  let code = `http_${response.status}`;
  let message = response.statusText || `HTTP ${response.status}`;
  let field: string | null = null;
  try {
    const body: unknown = await response.json();
    if (body && typeof body === "object") {
      const record = body as Record<string, unknown>;
      const inner = (
        record.error && typeof record.error === "object" ? record.error : record
      ) as Record<string, unknown>;
      if (typeof inner.code === "string") code = inner.code;
      if (typeof inner.message === "string") message = inner.message;
      else if (typeof inner.detail === "string") message = inner.detail;
      if (typeof inner.field === "string") field = inner.field;
    }
  } catch {
    // Not JSON (a proxy's HTML error page): keep the status text.
  }
  return new ApiError(response.status, code, message, field);
}

export class ApiClient {
  private readonly baseUrl: string;
  private readonly getToken: () => string | null;
  private readonly fetchImpl: typeof fetch;

  constructor(options: ApiClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? "").replace(/\/$/, "");
    this.getToken = options.getToken ?? (() => null);
    this.fetchImpl = options.fetchImpl ?? ((input, init) => globalThis.fetch(input, init));
  }

  private headers(json: boolean): Record<string, string> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (json) headers["Content-Type"] = "application/json";
    const token = this.getToken();
    if (token) headers.Authorization = `Bearer ${token}`;
    return headers;
  }

  private async raw(method: string, path: string, body?: unknown): Promise<Response> {
    let response: Response;
    try {
      response = await this.fetchImpl(`${this.baseUrl}/v1${path}`, {
        method,
        headers: this.headers(body !== undefined),
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (exc) {
      const reason = exc instanceof Error ? exc.message : String(exc);
      throw new ApiError(0, "network_error", `cannot reach the unimem server (${reason})`);
    }
    if (!response.ok) throw await toApiError(response);
    return response;
  }

  private async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.raw(method, path, body);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  /** `/healthz`: whether the server runs in local mode (no login). */
  async health(): Promise<{ status: string; local_mode: boolean | null }> {
    let response: Response;
    try {
      response = await this.fetchImpl(`${this.baseUrl}/healthz`, { headers: this.headers(false) });
    } catch (exc) {
      const reason = exc instanceof Error ? exc.message : String(exc);
      throw new ApiError(0, "network_error", `cannot reach the unimem server (${reason})`);
    }
    if (!response.ok) throw await toApiError(response);
    return (await response.json()) as { status: string; local_mode: boolean | null };
  }

  /** `GET /v1/config`: whether an assistant answers turns, and whether auth is on. */
  getConfig(): Promise<ServerConfig> {
    return this.json("GET", "/config");
  }

  /**
   * Ask the assistant to answer the session's last user turn. `onDelta` gets
   * each piece of the reply as the server streams it. Resolves to the stored
   * assistant entry, or to null when `signal` aborted it (a barge-in: the server
   * then stores what was streamed, marked interrupted).
   */
  async streamReply(
    sessionId: string,
    request: ReplyRequest,
    onDelta: (text: string) => void,
    signal?: AbortSignal,
  ): Promise<MemoryEntry | null> {
    let response: Response;
    try {
      response = await this.fetchImpl(`${this.baseUrl}/v1/sessions/${enc(sessionId)}/reply`, {
        method: "POST",
        headers: { ...this.headers(true), Accept: "text/event-stream" },
        body: JSON.stringify(request),
        signal,
      });
    } catch (exc) {
      if (signal?.aborted) return null;
      const reason = exc instanceof Error ? exc.message : String(exc);
      throw new ApiError(0, "network_error", `cannot reach the unimem server (${reason})`);
    }
    if (!response.ok) throw await toApiError(response);
    if (!response.body) throw new ApiError(0, "no_stream", "this browser cannot read a streamed reply");
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let stored: MemoryEntry | null = null;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = parseSseBlock(buffer.slice(0, cut));
          buffer = buffer.slice(cut + 2);
          if (block?.event === "delta" && typeof block.data.text === "string") onDelta(block.data.text);
          else if (block?.event === "done") stored = block.data as unknown as MemoryEntry;
          else if (block?.event === "error") {
            const code = typeof block.data.code === "string" ? block.data.code : "llm_error";
            const message = typeof block.data.message === "string" ? block.data.message : "the assistant failed";
            throw new ApiError(502, code, message);
          }
        }
      }
    } catch (exc) {
      if (signal?.aborted) return null;
      if (exc instanceof ApiError) throw exc;
      const reason = exc instanceof Error ? exc.message : String(exc);
      throw new ApiError(0, "network_error", `the reply stream broke off (${reason})`);
    }
    if (stored === null) throw new ApiError(502, "llm_error", "the reply stream ended before the reply was stored");
    return stored;
  }

  /** Store one message; resolves to it as stored (id, seq, language, phi flag set). */
  addEntry(sessionId: string, entry: NewEntry): Promise<MemoryEntry> {
    return this.json("POST", `/sessions/${enc(sessionId)}/entries`, entry);
  }

  /** The session's last messages (those before `beforeSeq` when paging back), oldest first. */
  getHistory(sessionId: string, maxMessages = 200, beforeSeq?: number): Promise<MemoryEntry[]> {
    const query = new URLSearchParams({ max_messages: String(maxMessages) });
    if (beforeSeq !== undefined) query.set("before_seq", String(beforeSeq));
    return this.json("GET", `/sessions/${enc(sessionId)}/history?${query.toString()}`);
  }

  /** The session's last `limit` events, oldest first. */
  getEvents(sessionId: string, limit = 500): Promise<MemoryEvent[]> {
    return this.json("GET", `/sessions/${enc(sessionId)}/events?limit=${limit}`);
  }

  getContext(sessionId: string, maxMessages = 10): Promise<ConversationContext> {
    return this.json("GET", `/sessions/${enc(sessionId)}/context?max_messages=${maxMessages}`);
  }

  /** Record a voice/text switch; resolves to the context to continue with. */
  switchMode(sessionId: string, fromMode: Mode, toMode: Mode): Promise<ConversationContext> {
    return this.json("POST", `/sessions/${enc(sessionId)}/mode-switch`, {
      from_mode: fromMode,
      to_mode: toMode,
    });
  }

  switchLanguage(
    sessionId: string,
    fromLanguage: string,
    toLanguage: string,
    trigger: SwitchTrigger = "user_request",
  ): Promise<MemoryEvent> {
    return this.json("POST", `/sessions/${enc(sessionId)}/language-switch`, {
      from_language: fromLanguage,
      to_language: toLanguage,
      trigger,
    });
  }

  /** Exactly the messages that would be sent to the LLM, with their token count. */
  llmContext(sessionId: string, request: LlmContextRequest): Promise<LlmContext> {
    return this.json("POST", `/sessions/${enc(sessionId)}/llm-context`, request);
  }

  /** Store what the user actually heard of an assistant answer cut short. */
  markInterrupted(sessionId: string, entryId: string, spokenText: string): Promise<MemoryEntry> {
    return this.json(
      "POST",
      `/sessions/${enc(sessionId)}/entries/${enc(entryId)}/interrupted`,
      { spoken_text: spokenText },
    );
  }

  getSettings(): Promise<MemorySettings> {
    return this.json("GET", "/me/settings");
  }

  putSettings(settings: MemorySettings): Promise<MemorySettings> {
    return this.json("PUT", "/me/settings", settings);
  }

  /** Delete the caller's memory: this session, today's, or everything. */
  deleteMemory(scope: DeleteScope, sessionId?: string): Promise<DeletionReceipt> {
    const query = new URLSearchParams({ scope });
    if (scope === "session" && sessionId) query.set("session_id", sessionId);
    return this.json("DELETE", `/me/memory?${query.toString()}`);
  }

  /** Everything the server holds about the caller, as a JSON blob to save. */
  async exportMemory(): Promise<Blob> {
    const response = await this.raw("GET", "/me/export");
    return response.blob();
  }

  /**
   * The live WebSocket URL of a session. Browsers cannot set headers on a
   * WebSocket, so the token travels as a query parameter.
   */
  liveUrl(sessionId: string, origin: string = globalThis.location?.href ?? ""): string {
    const url = new URL(`${this.baseUrl}/v1/sessions/${enc(sessionId)}/live`, origin);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    const token = this.getToken();
    if (token) url.searchParams.set("token", token);
    return url.toString();
  }
}
