/**
 * `useUnifiedMemory()`: one conversation across voice and text, kept by the
 * unimem server and updated live.
 *
 * The hook holds no conversation of its own in the browser: it loads the
 * session's history and events over HTTP, stores new messages with the API,
 * and merges whatever the live WebSocket pushes (from this tab, another tab,
 * or a phone) by id, so every client converges on the server's timeline.
 */

import { useCallback, useEffect, useMemo, useRef, useState } from "react";

import { ApiError, type ApiClient } from "../api/client";
import { connectLive, type LiveMessage, type LiveStatus } from "../api/live";
import type {
  DeleteScope,
  DeletionReceipt,
  LlmContext,
  MemoryEntry,
  MemoryEvent,
  Mode,
  Role,
} from "../api/models";
import { buildTimeline, mergeById, sortEntries, upsertById, type TimelineItem } from "../lib/timeline";

export interface MessageInput {
  content: string;
  role?: Role;
  /** Defaults to the current input mode. */
  mode?: Mode;
  /** Defaults to the chosen language; null lets the server detect it. */
  language?: string | null;
  metadata?: Record<string, unknown>;
}

export interface UseUnifiedMemoryOptions {
  sessionId: string;
  client: ApiClient;
  /** Injected in unit tests. */
  WebSocketImpl?: typeof WebSocket;
  /** How many messages of history to load. */
  historyLimit?: number;
}

export type LoadStatus = "loading" | "ready" | "error";

export interface UnifiedMemory {
  sessionId: string;
  /** Stored messages, oldest first (plus this tab's unsent ones, last). */
  messages: MemoryEntry[];
  /** Stored events (mode and language switches, ...). */
  events: MemoryEvent[];
  /** Messages and switch markers interleaved in order. */
  timeline: TimelineItem[];
  /** The input mode of this client. */
  mode: Mode;
  switchMode: (mode: Mode) => Promise<void>;
  /** The language new messages are tagged with; null = let the server detect. */
  language: string | null;
  switchLanguage: (language: string | null) => Promise<void>;
  /** The session's current language as the server last reported it. */
  sessionLanguage: string | null;
  addMessage: (input: MessageInput) => Promise<MemoryEntry>;
  clearMemory: (scope?: DeleteScope) => Promise<DeletionReceipt>;
  markInterrupted: (entryId: string, spokenText: string) => Promise<MemoryEntry>;
  inspectContext: (query: string) => Promise<LlmContext>;
  refresh: () => Promise<void>;
  /** Whether older messages than those loaded may exist. */
  hasEarlier: boolean;
  /** Load the page of messages before the oldest one shown. */
  loadEarlier: () => Promise<void>;
  status: LoadStatus;
  error: string | null;
  authRequired: boolean;
  live: LiveStatus;
}

function isNotFound(exc: unknown): boolean {
  return exc instanceof ApiError && exc.status === 404;
}

export function useUnifiedMemory(options: UseUnifiedMemoryOptions): UnifiedMemory {
  const { sessionId, client, WebSocketImpl, historyLimit = 200 } = options;
  const [messages, setMessages] = useState<MemoryEntry[]>([]);
  const [events, setEvents] = useState<MemoryEvent[]>([]);
  const [mode, setMode] = useState<Mode>("text");
  const [language, setLanguage] = useState<string | null>(null);
  const [sessionLanguage, setSessionLanguage] = useState<string | null>(null);
  const [status, setStatus] = useState<LoadStatus>("loading");
  const [error, setError] = useState<string | null>(null);
  const [authRequired, setAuthRequired] = useState(false);
  const [live, setLive] = useState<LiveStatus>("connecting");
  const [hasEarlier, setHasEarlier] = useState(false);

  // Latest values for callbacks that must not change identity on every render.
  const state = useRef({ mode, sessionLanguage, count: 0 });
  state.current = { mode, sessionLanguage, count: messages.length };

  const fail = useCallback((exc: unknown): never => {
    if (exc instanceof ApiError && exc.status === 401) setAuthRequired(true);
    setError(exc instanceof Error ? exc.message : String(exc));
    throw exc;
  }, []);

  const refresh = useCallback(async (): Promise<void> => {
    try {
      const [history, stored, context] = await Promise.all([
        client.getHistory(sessionId, historyLimit).catch((exc: unknown) => {
          if (isNotFound(exc)) return [];
          throw exc;
        }),
        client.getEvents(sessionId).catch((exc: unknown) => {
          if (isNotFound(exc)) return [];
          throw exc;
        }),
        client.getContext(sessionId, 1).catch((exc: unknown) => {
          if (isNotFound(exc)) return null;
          throw exc;
        }),
      ]);
      // Server state replaces ours. Kept: unsent local messages, older pages
      // loaded with loadEarlier, and anything the live socket delivered after
      // the server answered this read.
      const firstEntry = Math.min(Number.MAX_SAFE_INTEGER, ...history.map((m) => m.seq ?? 0));
      const lastEntry = Math.max(0, ...history.map((m) => m.seq ?? 0));
      const lastEvent = Math.max(0, ...stored.map((e) => e.seq ?? 0));
      const keep = (m: MemoryEntry) =>
        m.seq === null || (history.length > 0 && (m.seq > lastEntry || m.seq < firstEntry));
      setMessages((current) => sortEntries(mergeById(history, current.filter(keep))));
      setEvents((current) =>
        mergeById(stored, current.filter((e) => e.seq !== null && e.seq > lastEvent)),
      );
      setHasEarlier(history.length >= historyLimit && (history[0]?.seq ?? 1) > 1);
      // The session's mode is the server's (another tab may have switched it);
      // an empty session has none yet and keeps this tab's choice.
      if (context?.current_mode) setMode(context.current_mode);
      setSessionLanguage(context?.current_language ?? null);
      setAuthRequired(false);
      setError(null);
      setStatus("ready");
    } catch (exc) {
      setStatus("error");
      try {
        fail(exc);
      } catch {
        // refresh reports through `error`; callers need not catch it
      }
    }
  }, [client, sessionId, historyLimit, fail]);

  const onLive = useCallback(
    (message: LiveMessage): void => {
      switch (message.kind) {
        case "entry": {
          const entry = message.item;
          if (entry.session_id && entry.session_id !== sessionId) return;
          setMessages((current) => sortEntries(upsertById(current, entry)));
          if (entry.role === "user" && entry.language) setSessionLanguage(entry.language);
          break;
        }
        case "event": {
          const event = message.item;
          if (event.session_id && event.session_id !== sessionId) return;
          setEvents((current) => upsertById(current, event));
          // Switches made anywhere (another tab, a phone) move this tab too, so
          // its next message does not switch the session back.
          const toMode = event.data.to_mode;
          if (event.event_type === "mode_switch" && (toMode === "voice" || toMode === "text")) {
            setMode(toMode);
          }
          const to = event.data.to_language;
          if (event.event_type === "language_switch" && typeof to === "string" && to) {
            setSessionLanguage(to);
            // A chosen language follows; "Auto-detect" stays automatic.
            setLanguage((current) => (current === null ? null : to));
          }
          // An interrupted answer was rewritten to what was heard: fetch it again.
          if (event.event_type === "interruption") void refresh();
          break;
        }
        case "memory_deleted": {
          // Deleted in another tab or device: show what is left on the server.
          setMessages([]);
          setEvents([]);
          void refresh();
          break;
        }
      }
    },
    [sessionId, refresh],
  );

  useEffect(() => {
    setMessages([]);
    setEvents([]);
    setStatus("loading");
    void refresh();
    const connection = connectLive({
      url: () => client.liveUrl(sessionId),
      protocols: () => client.liveProtocols(),
      onMessage: onLive,
      onStatus: (next) => {
        setLive(next);
        if (next === "unauthorized") setAuthRequired(true);
      },
      // Anything stored while we were disconnected is fetched again.
      onOpen: (reconnected) => {
        if (reconnected) void refresh();
      },
      WebSocketImpl,
    });
    return () => connection.close();
  }, [client, sessionId, refresh, onLive, WebSocketImpl]);

  const addMessage = useCallback(
    async (input: MessageInput): Promise<MemoryEntry> => {
      const content = input.content.trim();
      if (!content) throw new Error("a message needs some text");
      const entryMode = input.mode ?? state.current.mode;
      const entryLanguage = input.language === undefined ? language : input.language;
      const localId = `local-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
      const draft: MemoryEntry = {
        id: localId,
        session_id: sessionId,
        user_id: "",
        timestamp: new Date().toISOString(),
        seq: null,
        role: input.role ?? "user",
        content,
        mode: entryMode,
        language: entryLanguage,
        detected_language: null,
        language_switched: false,
        retrieved_passages: [],
        sources: [],
        latency_ms: null,
        degradations: [],
        phi_detected: false,
        metadata: { ...(input.metadata ?? {}), sending: true },
      };
      setMessages((current) => [...current, draft]);
      try {
        const stored = await client.addEntry(sessionId, {
          role: draft.role,
          content,
          mode: entryMode,
          ...(entryLanguage ? { language: entryLanguage } : {}),
          ...(input.metadata ? { metadata: input.metadata } : {}),
        });
        setMessages((current) =>
          sortEntries(upsertById(current.filter((m) => m.id !== localId), stored)),
        );
        if (stored.role === "user" && stored.language) setSessionLanguage(stored.language);
        setError(null);
        return stored;
      } catch (exc) {
        setMessages((current) => current.filter((m) => m.id !== localId));
        return fail(exc);
      }
    },
    [client, sessionId, language, fail],
  );

  const switchMode = useCallback(
    async (next: Mode): Promise<void> => {
      const previous = state.current.mode;
      if (next === previous) return;
      setMode(next);
      // An empty session has nothing to switch from; its first message sets the mode.
      if (state.current.count === 0) return;
      try {
        const context = await client.switchMode(sessionId, previous, next);
        setEvents((current) => mergeById(current, context.mode_events ?? []));
      } catch (exc) {
        setMode(previous);
        fail(exc);
      }
    },
    [client, sessionId, fail],
  );

  const switchLanguage = useCallback(
    async (next: string | null): Promise<void> => {
      setLanguage(next);
      const from = state.current.sessionLanguage;
      if (!next || !from || next === from || state.current.count === 0) return;
      try {
        const event = await client.switchLanguage(sessionId, from, next, "user_request");
        setEvents((current) => upsertById(current, event));
        setSessionLanguage(next);
      } catch (exc) {
        fail(exc);
      }
    },
    [client, sessionId, fail],
  );

  const clearMemory = useCallback(
    async (scope: DeleteScope = "session"): Promise<DeletionReceipt> => {
      try {
        const receipt = await client.deleteMemory(scope, sessionId);
        setMessages([]);
        setEvents([]);
            await refresh();
        return receipt;
      } catch (exc) {
        return fail(exc);
      }
    },
    [client, sessionId, refresh, fail],
  );

  const markInterrupted = useCallback(
    async (entryId: string, spokenText: string): Promise<MemoryEntry> => {
      try {
        const stored = await client.markInterrupted(sessionId, entryId, spokenText);
        setMessages((current) => sortEntries(upsertById(current, stored)));
        return stored;
      } catch (exc) {
        return fail(exc);
      }
    },
    [client, sessionId, fail],
  );

  const inspectContext = useCallback(
    async (query: string): Promise<LlmContext> => {
      try {
        return await client.llmContext(sessionId, { current_query: query, max_tokens: 4000 });
      } catch (exc) {
        return fail(exc);
      }
    },
    [client, sessionId, fail],
  );

  const loadEarlier = useCallback(async (): Promise<void> => {
    const oldest = Math.min(...messages.map((m) => m.seq ?? Number.MAX_SAFE_INTEGER));
    if (!Number.isFinite(oldest) || oldest <= 1) {
      setHasEarlier(false);
      return;
    }
    try {
      const page = await client.getHistory(sessionId, historyLimit, oldest);
      setMessages((current) => sortEntries(mergeById(current, page)));
      setHasEarlier(page.length >= historyLimit && (page[0]?.seq ?? 1) > 1);
    } catch (exc) {
      fail(exc);
    }
  }, [client, sessionId, historyLimit, messages, fail]);

  const timeline = useMemo(() => buildTimeline(messages, events), [messages, events]);

  return {
    sessionId,
    messages,
    events,
    timeline,
    mode,
    switchMode,
    language,
    switchLanguage,
    sessionLanguage,
    addMessage,
    clearMemory,
    markInterrupted,
    inspectContext,
    refresh,
    hasEarlier,
    loadEarlier,
    status,
    error,
    authRequired,
    live,
  };
}
