import { useCallback, useEffect, useMemo, useRef, useState } from "react";

import { ApiClient } from "./api/client";
import type { ServerConfig } from "./api/models";
import { ChatHistory } from "./components/ChatHistory";
import { ChatInput } from "./components/ChatInput";
import { ContextInspector } from "./components/ContextInspector";
import { ConversationList } from "./components/ConversationList";
import { LanguagePicker } from "./components/LanguagePicker";
import { MemorySearch } from "./components/MemorySearch";
import { ModeSwitch } from "./components/ModeSwitch";
import { FactsPanel } from "./components/FactsPanel";
import { PrivacyPanel } from "./components/PrivacyPanel";
import { TokenForm } from "./components/TokenForm";
import { VoicePanel } from "./components/VoicePanel";
import { useSpeech } from "./hooks/useSpeech";
import { useUnifiedMemory } from "./hooks/useUnifiedMemory";
import { conversationLabel } from "./lib/conversations";
import { loadToken, newSessionId, rememberSessionId, resolveSessionId, saveToken } from "./lib/session";

const LIVE_TEXT = {
  open: "Live",
  connecting: "Connecting…",
  closed: "Reconnecting…",
  unauthorized: "Not signed in",
} as const;

export interface AppProps {
  /** Injected in unit tests. */
  WebSocketImpl?: typeof WebSocket;
  /** Injected in unit tests; defaults to the page's own server. */
  client?: ApiClient;
}

export function App({ WebSocketImpl, client: injected }: AppProps) {
  const [token, setToken] = useState<string | null>(loadToken);
  const client = useMemo(
    () => injected ?? new ApiClient({ getToken: () => token }),
    [injected, token],
  );
  const [sessionId, setSessionId] = useState<string>(resolveSessionId);
  const memory = useUnifiedMemory({ sessionId, client, WebSocketImpl });
  const speech = useSpeech();
  const [speakReplies, setSpeakReplies] = useState(true);

  // Ask for a token up front when the server has auth on; local mode needs none.
  const [needsToken, setNeedsToken] = useState(false);
  useEffect(() => {
    let current = true;
    client
      .health()
      .then((h) => current && setNeedsToken(h.local_mode === false && !token))
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [client, token]);

  const onToken = (next: string | null) => {
    saveToken(next);
    setToken(next);
  };

  const openSession = useCallback((id: string) => {
    rememberSessionId(id);
    setSessionId(id);
  }, []);
  const startNew = () => openSession(newSessionId());
  // A search hit or a fact's source opens its conversation at that turn: older pages are loaded
  // until the turn is there, then the history scrolls to it and marks it.
  const [focus, setFocus] = useState<{ sessionId: string; entryId: string | null } | null>(null);
  const openAt = useCallback(
    (id: string, entryId: string | null) => {
      openSession(id);
      setFocus({ sessionId: id, entryId });
    },
    [openSession],
  );
  const focusId = focus !== null && focus.sessionId === sessionId ? focus.entryId : null;
  const { hasEarlier, loadEarlier, status, messages } = memory;
  const focusMissing = focusId !== null && !messages.some((m) => m.id === focusId);
  useEffect(() => {
    if (focusMissing && status === "ready" && hasEarlier) void loadEarlier().catch(() => undefined);
  }, [focusMissing, status, hasEarlier, loadEarlier]);

  // The header names the conversation by its date and first words, not its id.
  const [firstLines, setFirstLines] = useState<ReadonlyMap<string, string>>(new Map());
  const first = memory.hasEarlier ? undefined : memory.messages.find((m) => m.seq !== null);
  const label = conversationLabel(
    first?.timestamp ?? null,
    firstLines.get(sessionId) ?? first?.content ?? null,
  );
  // The list is read again when this conversation gets its first message or memory is deleted.
  const [deletions, setDeletions] = useState(0);
  const listVersion = `${sessionId}:${memory.messages.some((m) => m.seq !== null)}:${deletions}`;
  const clearMemory = useCallback(
    async (scope: Parameters<typeof memory.clearMemory>[0]) => {
      try {
        return await memory.clearMemory(scope);
      } finally {
        setDeletions((n) => n + 1);
      }
    },
    [memory],
  );

  // With an LLM configured on the server, every user turn gets a streamed reply.
  const [config, setConfig] = useState<ServerConfig | null>(null);
  useEffect(() => {
    let current = true;
    client
      .getConfig()
      .then((c) => current && setConfig(c))
      .catch(() => current && setConfig(null));
    return () => {
      current = false;
    };
  }, [client]);
  const assistant = config?.llm_configured === true;

  const [streaming, setStreaming] = useState<string | null>(null);
  const [replyError, setReplyError] = useState<string | null>(null);
  const replyAbort = useRef<AbortController | null>(null);
  const { refresh } = memory;
  const answer = useCallback(async () => {
    replyAbort.current?.abort();
    const controller = new AbortController();
    replyAbort.current = controller;
    setStreaming("");
    setReplyError(null);
    try {
      const stored = await client.streamReply(
        sessionId,
        {},
        (piece) => setStreaming((text) => (text ?? "") + piece),
        controller.signal,
      );
      // The live socket usually delivered it already; a refresh makes sure.
      if (stored !== null) await refresh();
    } catch (exc) {
      setReplyError(exc instanceof Error ? exc.message : String(exc));
    } finally {
      if (replyAbort.current === controller) {
        replyAbort.current = null;
        setStreaming(null);
      }
    }
  }, [client, sessionId, refresh]);
  // Barge-in: the user types or talks while a reply streams or is read aloud.
  // The server stores a cut-off stream as interrupted; speech keeps what was heard.
  const bargeIn = useCallback(() => {
    if (replyAbort.current) {
      replyAbort.current.abort();
      replyAbort.current = null;
      setStreaming(null);
    }
    if (speech.speaking) speech.stopSpeaking();
  }, [speech]);

  const send = useCallback(
    async (content: string) => {
      const stored = await memory.addMessage({ content, mode: "text" });
      if (assistant) void answer();
      return stored;
    },
    [memory, assistant, answer],
  );
  const onTranscript = useCallback(
    (text: string) => {
      void memory
        .addMessage({ content: text, mode: "voice" })
        .then(() => {
          if (assistant) void answer();
        })
        .catch(() => undefined);
    },
    [memory, assistant, answer],
  );

  // Read new assistant replies aloud in voice mode. Replies already there when
  // the page loaded are not read; an answer cut off by the user is stored as heard.
  const seen = useRef<Set<string> | null>(null);
  useEffect(() => {
    if (memory.status !== "ready") return;
    if (seen.current === null) {
      seen.current = new Set(memory.messages.map((m) => m.id));
      return;
    }
    for (const m of memory.messages) {
      if (seen.current.has(m.id)) continue;
      seen.current.add(m.id);
      if (
        m.role === "assistant" &&
        m.seq !== null &&
        m.metadata?.interrupted !== true &&
        memory.mode === "voice" &&
        speakReplies &&
        speech.synthesisSupported
      ) {
        void speech.speak(m.content, m.language).then((result) => {
          if (result.interrupted && result.heard !== m.content) {
            void memory.markInterrupted(m.id, result.heard).catch(() => undefined);
          }
        });
      }
    }
  }, [memory, speech, speakReplies]);
  useEffect(() => {
    seen.current = null;
  }, [sessionId]);

  const signIn = memory.authRequired || needsToken;
  // A saved token the server refused: say so on the sign-in form.
  const tokenRejected = signIn && token !== null;
  const lastUserText =
    [...memory.messages].reverse().find((m) => m.role === "user")?.content ?? "";

  return (
    <div className="app">
      <header className="topbar">
        <h1>
          unimem <span className="subtitle">one conversation, voice and text</span>
        </h1>
        <div className="session">
          <span className={`live live-${memory.live}`} role="status" data-testid="live-status">
            <span className="dot" aria-hidden="true" /> {LIVE_TEXT[memory.live]}
          </span>
          <span
            className="session-label"
            data-testid="session-label"
            title={`Conversation id ${sessionId}: open this address on another device to continue`}
          >
            {label}
          </span>
          <button type="button" onClick={startNew}>
            New conversation
          </button>
          {token && !signIn ? (
            <button type="button" onClick={() => onToken(null)}>
              Sign out
            </button>
          ) : null}
        </div>
      </header>

      {signIn ? (
        <TokenForm
          token={token}
          onToken={onToken}
          error={tokenRejected ? (memory.error ?? "the live connection was refused") : null}
        />
      ) : null}
      {memory.error && !signIn ? (
        <p className="error banner" role="alert">
          {memory.error}
        </p>
      ) : null}

      {signIn ? null : (
        <main className="layout">
          <section className="chat" aria-label="Chat">
            {config !== null && !assistant ? (
              <p className="chat-note" data-testid="no-assistant">
                No assistant is connected: messages are remembered, but nothing answers them.
              </p>
            ) : null}
            <ChatHistory
              timeline={memory.timeline}
              loading={memory.status === "loading"}
              onLoadEarlier={memory.hasEarlier ? () => void memory.loadEarlier() : undefined}
              focusId={focusId}
            />
            {streaming !== null ? (
              <div
                className="message role-assistant streaming"
                data-testid="streaming-reply"
                aria-live="polite"
                aria-busy="true"
              >
                <div className="meta">
                  <span className="role">Assistant</span> <span className="badge">answering…</span>
                </div>
                <p className="content">{streaming || "…"}</p>
              </div>
            ) : null}
            {replyError ? (
              <p className="error" role="alert" data-testid="reply-error">
                The assistant could not answer: {replyError}
              </p>
            ) : null}
            <div className="composer">
              <div className="controls">
                <ModeSwitch mode={memory.mode} onSwitch={(m) => void memory.switchMode(m).catch(() => undefined)} />
                <LanguagePicker
                  language={memory.language}
                  sessionLanguage={memory.sessionLanguage}
                  onChange={(l) => void memory.switchLanguage(l).catch(() => undefined)}
                />
              </div>
              {memory.mode === "text" ? (
                <ChatInput
                  onSend={send}
                  language={memory.language}
                  disabled={memory.authRequired}
                  onTyping={bargeIn}
                />
              ) : (
                <VoicePanel
                  speech={speech}
                  language={memory.language}
                  onTranscript={onTranscript}
                  speakReplies={speakReplies}
                  onSpeakRepliesChange={setSpeakReplies}
                  onBargeIn={bargeIn}
                  onSwitchToText={() => void memory.switchMode("text").catch(() => undefined)}
                />
              )}
            </div>
          </section>
          <aside className="side">
            <MemorySearch client={client} onOpenAt={openAt} />
            <ConversationList
              client={client}
              currentId={sessionId}
              onOpen={openSession}
              version={listVersion}
              onFirstLines={setFirstLines}
            />
            {assistant ? (
              <p className="assistant-note" data-testid="assistant-on">
                Assistant: {config?.llm_model ?? "LLM"} answers each turn. Type or talk to interrupt it.
              </p>
            ) : null}
            <ContextInspector inspect={memory.inspectContext} defaultQuery={lastUserText} llmConnected={assistant} />
            <FactsPanel
              client={client}
              onOpenSource={openAt}
              version={`${memory.messages.length}:${deletions}`}
            />
            <PrivacyPanel client={client} onDelete={clearMemory} />
          </aside>
        </main>
      )}
    </div>
  );
}
