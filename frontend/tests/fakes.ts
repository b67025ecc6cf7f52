/**
 * Test doubles for the browser's network APIs (unit tests only; the e2e
 * tests run against a real `unimem serve`).
 *
 * `FakeServer` answers `fetch` like the unimem API for one user, keeping
 * entries and events in memory, and records every request so tests can
 * assert on what the UI sent. `FakeWebSocket` lets a test push live frames.
 */

import type { Fact, MemoryEntry, MemoryEvent, MemorySettings, SessionInfo } from "../src/api/models";

export interface Recorded {
  method: string;
  path: string;
  body: unknown;
  headers: Record<string, string>;
}

let counter = 0;
export function makeEntry(over: Partial<MemoryEntry> = {}): MemoryEntry {
  counter += 1;
  return {
    id: `e${counter}`,
    session_id: "s1",
    user_id: "local",
    timestamp: new Date(Date.UTC(2026, 0, 1, 12, 0, counter)).toISOString(),
    seq: null,
    role: "user",
    content: `message ${counter}`,
    mode: "text",
    language: "en",
    detected_language: "en",
    language_switched: false,
    retrieved_passages: [],
    sources: [],
    latency_ms: null,
    degradations: [],
    phi_detected: false,
    metadata: {},
    ...over,
  };
}

export function makeEvent(over: Partial<MemoryEvent> = {}): MemoryEvent {
  counter += 1;
  return {
    id: `v${counter}`,
    session_id: "s1",
    user_id: "local",
    seq: null,
    event_type: "mode_switch",
    timestamp: new Date(Date.UTC(2026, 0, 1, 12, 0, counter)).toISOString(),
    data: {},
    ...over,
  };
}

export function makeFact(over: Partial<Fact> = {}): Fact {
  counter += 1;
  const at = new Date(Date.UTC(2026, 0, 1, 12, 0, counter)).toISOString();
  return {
    id: `f${counter}`,
    user_id: "local",
    kind: "medication",
    text: "Medication: lisinopril 10 mg",
    session_id: "s1",
    entry_id: null,
    created_at: at,
    key: "medication:lisinopril",
    value: "10 mg",
    status: "reported",
    valid_from: at,
    valid_to: null,
    source_entry_ids: ["e1"],
    attributes: { name: "lisinopril" },
    ...over,
  };
}

export class FakeServer {
  entries: MemoryEntry[] = [];
  events: MemoryEvent[] = [];
  settings: MemorySettings = {
    enabled: true,
    retention_days: 30,
    cross_session: true,
    save_voice_transcripts: true,
    save_rag_context: true,
    anonymize_phi: true,
  };
  requests: Recorded[] = [];
  /** When set, every request answers this status with an error body. */
  failWith: number | null = null;
  /** When set, requests without `Authorization: Bearer <this>` answer 401. */
  requireToken: string | null = null;
  mode: "voice" | "text" | null = null;
  language: string | null = null;
  /** When set, the server has an assistant: `/v1/config` says so and `/reply` streams these pieces. */
  replyPieces: string[] | null = null;
  /** What `GET /v1/sessions` lists. */
  sessions: SessionInfo[] = [];
  /** The caller's facts (current and closed), as `GET /v1/me/facts?include_history=true` lists them. */
  facts: Fact[] = [];
  /** Other sessions' messages, by session id (`entries` is every other session's). */
  histories: Record<string, MemoryEntry[]> = {};

  fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    const text = await request.text();
    const body = text ? (JSON.parse(text) as unknown) : undefined;
    // Header names as the UI spells them (a Request lowercases them).
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase())] = value;
    });
    this.requests.push({ method, path: url.pathname + url.search, body, headers });
    if (this.requireToken !== null && headers.Authorization !== `Bearer ${this.requireToken}`) {
      return json({ code: "auth_error", message: "missing credentials" }, 401);
    }
    if (this.failWith !== null) {
      return json({ error: { code: "nope", message: `failed with ${this.failWith}` } }, this.failWith);
    }
    if (url.pathname.endsWith("/reply") && method === "POST" && this.replyPieces) {
      return this.reply(decodeURIComponent(url.pathname.split("/")[3]!), this.replyPieces);
    }
    return this.route(method, url, body);
  };

  /** Like the server: SSE `delta` events, then the stored entry as `done`. */
  private reply(sessionId: string, pieces: string[]): Response {
    const entry = makeEntry({
      session_id: sessionId,
      seq: this.entries.length + 1,
      role: "assistant",
      content: pieces.join(""),
      mode: this.mode ?? "text",
    });
    this.entries.push(entry);
    const encoder = new TextEncoder();
    const frames = [
      ...pieces.map((text) => `event: delta\ndata: ${JSON.stringify({ text })}\n\n`),
      `event: done\ndata: ${JSON.stringify(entry)}\n\n`,
    ];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const frame of frames) controller.enqueue(encoder.encode(frame));
        controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream" } });
  }

  private route(method: string, url: URL, body: unknown): Response {
    const path = url.pathname;
    let m: RegExpMatchArray | null;
    if ((m = path.match(/^\/v1\/sessions\/([^/]+)\/entries$/)) && method === "POST") {
      const input = body as Partial<MemoryEntry>;
      const seq = this.entries.length + 1;
      if (input.role === "user" && this.mode && input.mode && input.mode !== this.mode) {
        this.events.push(
          makeEvent({ seq: this.events.length + 1, data: { from_mode: this.mode, to_mode: input.mode, entry_seq: seq } }),
        );
      }
      if (input.role === "user") this.mode = input.mode ?? "text";
      const entry = makeEntry({ ...input, session_id: decodeURIComponent(m[1]!), seq });
      this.entries.push(entry);
      return json(entry, 201);
    }
    if ((m = path.match(/^\/v1\/sessions\/([^/]+)\/history$/)) && method === "GET") {
      // Like the server: the last `max_messages` entries before `before_seq`, oldest first.
      const max = Number(url.searchParams.get("max_messages") ?? 50);
      const before = Number(url.searchParams.get("before_seq") ?? Number.POSITIVE_INFINITY);
      const entries = this.histories[decodeURIComponent(m[1]!)] ?? this.entries;
      return json(entries.filter((e) => (e.seq ?? 0) < before).slice(-max));
    }
    if ((m = path.match(/^\/v1\/sessions\/([^/]+)\/events$/)) && method === "GET") {
      return json(this.events);
    }
    if ((m = path.match(/^\/v1\/sessions\/([^/]+)\/context$/)) && method === "GET") {
      return json(this.context(decodeURIComponent(m[1]!)));
    }
    if ((m = path.match(/^\/v1\/sessions\/([^/]+)\/mode-switch$/)) && method === "POST") {
      const { from_mode, to_mode } = body as { from_mode: string; to_mode: "voice" | "text" };
      this.events.push(makeEvent({ seq: this.events.length + 1, data: { from_mode, to_mode } }));
      this.mode = to_mode;
      return json(this.context(decodeURIComponent(m[1]!)));
    }
    if ((m = path.match(/^\/v1\/sessions\/([^/]+)\/language-switch$/)) && method === "POST") {
      const event = makeEvent({ seq: this.events.length + 1, event_type: "language_switch", data: body as Record<string, unknown> });
      this.events.push(event);
      return json(event, 201);
    }
    if ((m = path.match(/^\/v1\/sessions\/([^/]+)\/llm-context$/)) && method === "POST") {
      const query = (body as { current_query: string }).current_query;
      return json({
        messages: [{ role: "system", content: "You are helpful." }, ...this.entries.map((e) => ({ role: e.role, content: e.content })), { role: "user", content: query }],
        token_count: 42,
        degradations: [],
      });
    }
    if ((m = path.match(/^\/v1\/sessions\/([^/]+)\/entries\/([^/]+)\/interrupted$/)) && method === "POST") {
      const entry = this.entries.find((e) => e.id === decodeURIComponent(m![2]!));
      if (!entry) return json({ error: { code: "entry_not_found", message: "no entry" } }, 404);
      const full = entry.content;
      entry.content = (body as { spoken_text: string }).spoken_text;
      entry.metadata = { ...entry.metadata, interrupted: true, full_text: full };
      return json(entry);
    }
    if (path === "/v1/sessions" && method === "GET") {
      const limit = Number(url.searchParams.get("limit") ?? 20);
      return json({ sessions: this.sessions.slice(0, limit), limit, offset: 0, next_offset: null });
    }
    if (path === "/v1/me/search" && method === "GET") {
      // Like the server, roughly: the turns of every session holding a word of `q`.
      const words = (url.searchParams.get("q") ?? "").toLowerCase().split(/\s+/).filter(Boolean);
      const k = Number(url.searchParams.get("k") ?? 10);
      const all = [...this.entries, ...Object.values(this.histories).flat()];
      const hits = all
        .filter((e) => words.some((w) => e.content.toLowerCase().includes(w)))
        .slice(0, k)
        .map((e) => ({
          kind: "entry" as const,
          entry: e,
          id: e.id,
          session_id: e.session_id,
          timestamp: e.timestamp,
          score: 1,
          snippet: e.content,
          matched_by: ["keyword"],
        }));
      return json({ hits });
    }
    if (path === "/v1/config" && method === "GET") {
      return json({ llm_configured: this.replyPieces !== null, llm_model: this.replyPieces ? "tiny" : null, auth: false, version: "0" });
    }
    if (path === "/v1/me/settings" && method === "GET") return json(this.settings);
    if (path === "/v1/me/settings" && method === "PUT") {
      this.settings = body as MemorySettings;
      return json(this.settings);
    }
    if (path === "/v1/me/memory" && method === "DELETE") {
      const counts = { entries: this.entries.length, events: this.events.length };
      this.entries = [];
      this.events = [];
      this.mode = null;
      return json({ user_id: "local", scope: url.searchParams.get("scope"), deleted_at: new Date().toISOString(), counts });
    }
    if (path === "/v1/me/facts" && method === "GET") {
      const all = url.searchParams.get("include_history") === "true";
      return json(this.facts.filter((f) => all || f.valid_to === null));
    }
    if ((m = path.match(/^\/v1\/me\/facts\/([^/]+)(?:\/(confirm|correct))?$/))) {
      const fact = this.facts.find((f) => f.id === decodeURIComponent(m![1]!) && f.valid_to === null);
      if (method === "DELETE") {
        this.facts = this.facts.filter((f) => f !== fact);
        return json({ fact_id: m[1], deleted: fact !== undefined });
      }
      if (!fact) return json({ code: "fact_not_found", message: "no fact for this user" }, 404);
      if (m[2] === "confirm") {
        fact.status = "confirmed";
        return json(fact);
      }
      if (m[2] === "correct") {
        const value = (body as { value: string }).value;
        fact.valid_to = new Date().toISOString();
        const next = makeFact({ ...fact, id: `${fact.id}-c`, value, text: fact.text.replace(fact.value ?? "", value), status: "corrected", valid_to: null });
        this.facts.push(next);
        return json(next);
      }
    }
    if (path === "/v1/me/export" && method === "GET") {
      return json({ user_id: "local", entries: this.entries });
    }
    return json({ error: { code: "not_found", message: `no route ${method} ${path}` } }, 404);
  }

  private context(sessionId: string) {
    return {
      session_id: sessionId,
      user_id: "local",
      messages: this.entries.slice(-10),
      current_mode: this.mode,
      current_language: this.language,
      language_events: this.events.filter((e) => e.event_type === "language_switch"),
      mode_events: this.events.filter((e) => e.event_type === "mode_switch"),
      session: null,
      degradations: [],
    };
  }

  count(method: string, pathPrefix: string): Recorded[] {
    return this.requests.filter((r) => r.method === method && r.path.startsWith(pathPrefix));
  }
}

function json(value: unknown, status = 200): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { "Content-Type": "application/json" },
  });
}

export class FakeWebSocket {
  static instances: FakeWebSocket[] = [];
  static reset(): void {
    FakeWebSocket.instances = [];
  }
  static last(): FakeWebSocket {
    const ws = FakeWebSocket.instances.at(-1);
    if (!ws) throw new Error("no WebSocket was opened");
    return ws;
  }

  readonly url: string;
  readonly protocols: string[];
  readyState = 0;
  sent: string[] = [];
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;

  constructor(url: string, protocols?: string | string[]) {
    this.url = url;
    this.protocols = protocols === undefined ? [] : typeof protocols === "string" ? [protocols] : protocols;
    FakeWebSocket.instances.push(this);
  }

  send(data: string): void {
    this.sent.push(data);
  }

  close(): void {
    this.readyState = 3;
  }

  /** The server accepts the connection. */
  open(): void {
    this.readyState = 1;
    this.onopen?.(new Event("open"));
  }

  /** The server pushes one JSON frame. */
  push(frame: unknown): void {
    this.onmessage?.(new MessageEvent("message", { data: JSON.stringify(frame) }));
  }

  /** The server (or the network) closes the connection. */
  drop(code = 1006): void {
    this.readyState = 3;
    this.onclose?.(new CloseEvent("close", { code }));
  }
}

export const asWebSocket = FakeWebSocket as unknown as typeof WebSocket;

export function makeSession(over: Partial<SessionInfo> = {}): SessionInfo {
  return {
    session_id: "s1",
    user_id: "local",
    started_at: "2026-01-01T12:00:00Z",
    last_active_at: "2026-01-01T12:05:00Z",
    closed_at: null,
    current_mode: "text",
    current_language: "en",
    message_count: 0,
    last_entry_seq: 0,
    last_event_seq: 0,
    event_count: 0,
    modes_used: [],
    languages_used: [],
    ...over,
  };
}
