/**
 * The unimem HTTP API (`/v1`) for the UI, typed by the server's OpenAPI
 * document: requests go through `openapi-fetch` over the generated `schema.ts`,
 * so a path, parameter or body the server does not accept fails to compile.
 *
 * Every method resolves to the server's JSON or rejects with an `ApiError`
 * carrying the HTTP status and the server's error code and field, so the UI
 * can tell "log in" (401) from "fix this field" (422) from "server down".
 */

import createClient, { type Client } from "openapi-fetch";

import type {
  ConversationContext,
  DeleteScope,
  DeletionReceipt,
  Fact,
  FactCorrection,
  Health,
  LlmContext,
  LlmContextRequest,
  MemoryEntry,
  MemoryEvent,
  MemorySettings,
  Mode,
  NewEntry,
  ReplyRequest,
  SearchOptions,
  SearchResults,
  ServerConfig,
  SessionPage,
  Stored,
  SwitchTrigger,
} from "./models";
import type { paths } from "./schema";

/** The live WebSocket's subprotocol. */
export const LIVE_SUBPROTOCOL = "unimem.v1";

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
  /** Origin (and prefix) of the server; defaults to the page's own origin. */
  baseUrl?: string;
  /** The bearer token to send, or null in local mode. Read on every call. */
  getToken?: () => string | null;
  /** Injected in unit tests. */
  fetchImpl?: (request: Request) => Promise<Response>;
}

/** Code/message/field out of an error body (`ErrorBody`, or FastAPI's `{detail}`). */
function toApiError(response: Response, body: unknown): ApiError {
  let code = `http_${response.status}`;
  let message = response.statusText || `HTTP ${response.status}`;
  let field: string | null = null;
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
  // Anything else (a proxy's HTML error page): keep the status text.
  return new ApiError(response.status, code, message, field);
}

function networkError(exc: unknown, what = "cannot reach the unimem server"): ApiError {
  const reason = exc instanceof Error ? exc.message : String(exc);
  return new ApiError(0, "network_error", `${what} (${reason})`);
}

/** What every `openapi-fetch` call resolves to. */
interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** Await one call: its data as the server sent it, or an `ApiError`. */
async function ok<T>(call: Promise<Result<T>>): Promise<Stored<T>> {
  let result: Result<T>;
  try {
    result = await call;
  } catch (exc) {
    throw networkError(exc);
  }
  if (result.error !== undefined || !result.response.ok) throw toApiError(result.response, result.error);
  return result.data as Stored<T>;
}

export class ApiClient {
  /** The typed `openapi-fetch` client the methods below are written with. */
  readonly http: Client<paths>;
  private readonly baseUrl: string;
  private readonly getToken: () => string | null;

  constructor(options: ApiClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? "").replace(/\/$/, "");
    this.getToken = options.getToken ?? (() => null);
    const fetchImpl = options.fetchImpl ?? ((request: Request) => globalThis.fetch(request));
    // A Request needs an absolute URL: "" is the page's own origin.
    const origin = this.baseUrl || (globalThis.location?.origin ?? "");
    this.http = createClient<paths>({ baseUrl: origin, fetch: fetchImpl });
    this.http.use({
      onRequest: ({ request }) => {
        const token = this.getToken();
        if (token) request.headers.set("Authorization", `Bearer ${token}`);
        return request;
      },
    });
  }

  /** `/healthz`: whether the server runs in local mode (no login). */
  health(): Promise<Health> {
    return ok(this.http.GET("/healthz"));
  }

  /** `GET /v1/config`: whether an assistant answers turns, and whether auth is on. */
  getConfig(): Promise<ServerConfig> {
    return ok(this.http.GET("/v1/config"));
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
    let result: Result<ReadableStream<Uint8Array> | null>;
    try {
      result = await this.http.POST("/v1/sessions/{session_id}/reply", {
        params: { path: { session_id: sessionId } },
        body: request,
        headers: { Accept: "text/event-stream" },
        parseAs: "stream",
        signal,
      });
    } catch (exc) {
      if (signal?.aborted) return null;
      throw networkError(exc);
    }
    if (result.error !== undefined || !result.response.ok) throw toApiError(result.response, result.error);
    if (!result.data) throw new ApiError(0, "no_stream", "this browser cannot read a streamed reply");
    const reader = result.data.getReader();
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
      throw networkError(exc, "the reply stream broke off");
    }
    if (stored === null) throw new ApiError(502, "llm_error", "the reply stream ended before the reply was stored");
    return stored;
  }

  /** Store one message; resolves to it as stored (id, seq, language, phi flag set). */
  addEntry(sessionId: string, entry: NewEntry): Promise<MemoryEntry> {
    return ok(
      this.http.POST("/v1/sessions/{session_id}/entries", {
        params: { path: { session_id: sessionId } },
        body: entry,
      }),
    );
  }

  /** The session's last messages (those before `beforeSeq` when paging back), oldest first,
   * in the caller's own words: PHI tokens (`[PERSON_1]`) come back as their values. */
  getHistory(sessionId: string, maxMessages = 200, beforeSeq?: number): Promise<MemoryEntry[]> {
    return ok(
      this.http.GET("/v1/sessions/{session_id}/history", {
        params: {
          path: { session_id: sessionId },
          query: { max_messages: maxMessages, before_seq: beforeSeq, reveal: true },
        },
      }),
    );
  }

  /** The session's last `limit` events, oldest first. */
  getEvents(sessionId: string, limit = 500): Promise<MemoryEvent[]> {
    return ok(
      this.http.GET("/v1/sessions/{session_id}/events", {
        params: { path: { session_id: sessionId }, query: { limit } },
      }),
    );
  }

  getContext(sessionId: string, maxMessages = 10): Promise<ConversationContext> {
    return ok(
      this.http.GET("/v1/sessions/{session_id}/context", {
        params: { path: { session_id: sessionId }, query: { max_messages: maxMessages } },
      }),
    );
  }

  /** One page of the caller's conversations, most recently active first. */
  listSessions(limit = 20, offset = 0): Promise<SessionPage> {
    return ok(this.http.GET("/v1/sessions", { params: { query: { limit, offset } } }));
  }

  /**
   * Search every conversation of the caller (`GET /v1/me/search`): the turns,
   * pinned facts and summaries that match `query`, best first.
   */
  searchMemory(query: string, options: SearchOptions = {}): Promise<SearchResults> {
    return ok(this.http.GET("/v1/me/search", { params: { query: { ...options, q: query } } }));
  }

  /** Record a voice/text switch; resolves to the context to continue with. */
  switchMode(sessionId: string, fromMode: Mode, toMode: Mode): Promise<ConversationContext> {
    return ok(
      this.http.POST("/v1/sessions/{session_id}/mode-switch", {
        params: { path: { session_id: sessionId } },
        body: { from_mode: fromMode, to_mode: toMode },
      }),
    );
  }

  switchLanguage(
    sessionId: string,
    fromLanguage: string,
    toLanguage: string,
    trigger: SwitchTrigger = "user_request",
  ): Promise<MemoryEvent> {
    return ok(
      this.http.POST("/v1/sessions/{session_id}/language-switch", {
        params: { path: { session_id: sessionId } },
        body: { from_language: fromLanguage, to_language: toLanguage, trigger },
      }),
    );
  }

  /** Exactly the messages that would be sent to the LLM, with their token count. */
  llmContext(sessionId: string, request: LlmContextRequest): Promise<LlmContext> {
    return ok(
      this.http.POST("/v1/sessions/{session_id}/llm-context", {
        params: { path: { session_id: sessionId } },
        body: request,
      }),
    );
  }

  /** Store what the user actually heard of an assistant answer cut short. */
  markInterrupted(sessionId: string, entryId: string, spokenText: string): Promise<MemoryEntry> {
    return ok(
      this.http.POST("/v1/sessions/{session_id}/entries/{entry_id}/interrupted", {
        params: { path: { session_id: sessionId, entry_id: entryId } },
        body: { spoken_text: spokenText },
      }),
    );
  }

  getSettings(): Promise<MemorySettings> {
    return ok(this.http.GET("/v1/me/settings"));
  }

  putSettings(settings: MemorySettings): Promise<MemorySettings> {
    return ok(this.http.PUT("/v1/me/settings", { body: settings }));
  }

  /** The caller's facts, oldest first; with `includeHistory`, the closed ones too. */
  listFacts(includeHistory = false): Promise<Fact[]> {
    return ok(
      this.http.GET("/v1/me/facts", { params: { query: { include_history: includeHistory, reveal: true } } }),
    );
  }

  /** Mark a current fact as confirmed. */
  confirmFact(factId: string): Promise<Fact> {
    return ok(this.http.POST("/v1/me/facts/{fact_id}/confirm", { params: { path: { fact_id: factId } } }));
  }

  /** Correct a current fact: the old value is closed (kept as history), the returned one is current. */
  correctFact(factId: string, correction: FactCorrection): Promise<Fact> {
    return ok(
      this.http.POST("/v1/me/facts/{fact_id}/correct", {
        params: { path: { fact_id: factId } },
        body: correction,
      }),
    );
  }

  /** Delete one fact; whether the caller had it. */
  async deleteFact(factId: string): Promise<boolean> {
    const result = await ok(this.http.DELETE("/v1/me/facts/{fact_id}", { params: { path: { fact_id: factId } } }));
    return result.deleted;
  }

  /** Delete the caller's memory: this session, today's, or everything. */
  deleteMemory(scope: DeleteScope, sessionId?: string): Promise<DeletionReceipt> {
    const session = scope === "session" && sessionId ? { session_id: sessionId } : {};
    return ok(this.http.DELETE("/v1/me/memory", { params: { query: { scope, ...session } } }));
  }

  /** Everything the server holds about the caller, as a JSON blob to save (their own
   * words: PHI tokens come back as their values). */
  exportMemory(): Promise<Blob> {
    return ok(
      this.http.GET("/v1/me/export", { params: { query: { reveal: true } }, parseAs: "blob" }),
    );
  }

  /** The live WebSocket URL of a session (no credentials: see `liveProtocols`). */
  liveUrl(sessionId: string, origin: string = globalThis.location?.href ?? ""): string {
    const url = new URL(`${this.baseUrl}/v1/sessions/${encodeURIComponent(sessionId)}/live`, origin);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    return url.toString();
  }

  /**
   * The subprotocols to open the live WebSocket with. A browser cannot set
   * headers on a WebSocket, so the token travels as `bearer.<token>` in
   * `Sec-WebSocket-Protocol` (never in the URL, which servers and proxies log);
   * the server answers `unimem.v1`.
   */
  liveProtocols(): string[] {
    const token = this.getToken();
    return token ? [LIVE_SUBPROTOCOL, `bearer.${token}`] : [LIVE_SUBPROTOCOL];
  }
}
