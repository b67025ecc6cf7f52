/**
 * The live WebSocket of a session: every entry and event stored in it,
 * pushed as it is stored, whichever client wrote it.
 *
 * `connectLive` reconnects with backoff and calls `onOpen(true)` after a
 * reconnect so the caller can reload what it missed while disconnected.
 */

import type { MemoryEntry, MemoryEvent } from "./models";

/**
 * A frame pushed over the live WebSocket (`{"type", "item"}`): a stored entry
 * or event, or `memory_deleted` (the owner deleted memory in another tab: reload).
 * WebSocket frames are not part of the OpenAPI document, so this one is written here.
 */
export type LiveMessage =
  | { kind: "entry"; item: MemoryEntry }
  | { kind: "event"; item: MemoryEvent }
  | { kind: "memory_deleted"; item: MemoryEvent };

export type LiveStatus = "connecting" | "open" | "closed" | "unauthorized";

// Close codes the server uses for "who are you?" (4401) and "not yours" (4404);
// 1008 is the standard policy-violation code some servers send instead.
const AUTH_CLOSE_CODES = new Set([1008, 4401, 4403]);
const NOT_FOUND_CLOSE = 4404;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Read one frame from the server; null for frames the UI does not use. */
export function parseLive(raw: string): LiveMessage | null {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!isObject(data)) return null;
  const kind = data.type;
  const item = data.item;
  if (kind === "entry" && isObject(item) && typeof item.id === "string") {
    return { kind: "entry", item: item as unknown as MemoryEntry };
  }
  if (kind === "event" && isObject(item) && typeof item.event_type === "string") {
    return { kind: "event", item: item as unknown as MemoryEvent };
  }
  if (kind === "memory_deleted" && isObject(item)) {
    return { kind: "memory_deleted", item: item as unknown as MemoryEvent };
  }
  return null; // "ready", "pong", ...: nothing for the timeline
}

export interface LiveOptions {
  url: () => string;
  /** Subprotocols to offer (they carry the token); read on every (re)connect. */
  protocols?: () => string[];
  onMessage: (message: LiveMessage) => void;
  onStatus: (status: LiveStatus) => void;
  /** Called on every successful open; `reconnected` is false the first time. */
  onOpen?: (reconnected: boolean) => void;
  WebSocketImpl?: typeof WebSocket;
  maxDelayMs?: number;
}

export interface LiveConnection {
  close: () => void;
}

export function connectLive(options: LiveOptions): LiveConnection {
  const Impl = options.WebSocketImpl ?? globalThis.WebSocket;
  const maxDelay = options.maxDelayMs ?? 10_000;
  let socket: WebSocket | null = null;
  let stopped = false;
  let attempts = 0;
  let opened = false;
  let timer: ReturnType<typeof setTimeout> | null = null;

  const open = (): void => {
    if (stopped) return;
    options.onStatus("connecting");
    let ws: WebSocket;
    try {
      ws = new Impl(options.url(), options.protocols?.());
    } catch (exc) {
      // A token with characters a subprotocol cannot carry is no token: sign in again.
      if (exc instanceof DOMException && exc.name === "SyntaxError") {
        options.onStatus("unauthorized");
        return;
      }
      schedule();
      return;
    }
    socket = ws;
    ws.onopen = () => {
      attempts = 0;
      options.onStatus("open");
      options.onOpen?.(opened);
      opened = true;
    };
    ws.onmessage = (event: MessageEvent) => {
      if (typeof event.data !== "string") return;
      const message = parseLive(event.data);
      if (message) options.onMessage(message);
    };
    ws.onclose = (event: CloseEvent) => {
      if (socket !== ws) return;
      socket = null;
      if (stopped) return;
      if (AUTH_CLOSE_CODES.has(event.code)) {
        options.onStatus("unauthorized");
        return;
      }
      if (event.code === NOT_FOUND_CLOSE) {
        options.onStatus("closed");
        return;
      }
      schedule();
    };
  };

  const schedule = (): void => {
    options.onStatus("closed");
    attempts += 1;
    const delay = Math.min(maxDelay, 500 * 2 ** Math.min(attempts, 5));
    timer = setTimeout(open, delay);
  };

  open();
  return {
    close: () => {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      const ws = socket;
      socket = null;
      ws?.close();
    },
  };
}
