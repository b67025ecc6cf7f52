import { act, renderHook, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";

import { ApiClient } from "../src/api/client";
import { useUnifiedMemory } from "../src/hooks/useUnifiedMemory";
import { asWebSocket, FakeServer, FakeWebSocket, makeEntry, makeEvent } from "./fakes";

function setup(server = new FakeServer()) {
  const client = new ApiClient({ fetchImpl: server.fetch, baseUrl: "http://test.local" });
  const hook = renderHook(() => useUnifiedMemory({ sessionId: "s1", client, WebSocketImpl: asWebSocket }));
  return { server, client, hook };
}

beforeEach(() => FakeWebSocket.reset());

describe("useUnifiedMemory", () => {
  it("loads the session's history and events from the server, not the browser", async () => {
    const server = new FakeServer();
    server.entries = [makeEntry({ seq: 1, content: "hello" }), makeEntry({ seq: 2, content: "hola", mode: "voice", language: "es" })];
    server.events = [makeEvent({ seq: 1, data: { from_mode: "text", to_mode: "voice", entry_seq: 2 } })];
    server.mode = "voice";
    const { hook } = setup(server);
    await waitFor(() => expect(hook.result.current.status).toBe("ready"));
    expect(hook.result.current.messages.map((m) => m.content)).toEqual(["hello", "hola"]);
    expect(hook.result.current.timeline.map((i) => i.kind)).toEqual(["entry", "event", "entry"]);
    expect(hook.result.current.mode).toBe("voice");
    expect(FakeWebSocket.last().url).toBe("ws://test.local/v1/sessions/s1/live");
    expect(window.localStorage.length).toBe(0);
  });

  it("stores a message with the current mode and shows it once, even when the socket echoes it", async () => {
    const { hook, server } = setup();
    await waitFor(() => expect(hook.result.current.status).toBe("ready"));
    let stored = makeEntry();
    await act(async () => {
      stored = await hook.result.current.addMessage({ content: "  what is metformin for?  " });
    });
    expect(server.count("POST", "/v1/sessions/s1/entries")[0]?.body).toEqual({
      role: "user",
      content: "what is metformin for?",
      mode: "text",
    });
    act(() => FakeWebSocket.last().push({ type: "entry", item: stored }));
    expect(hook.result.current.messages).toHaveLength(1);
    expect(hook.result.current.messages[0]).toMatchObject({ seq: 1, mode: "text" });
  });

  it("shows messages another client stored, pushed live", async () => {
    const { hook } = setup();
    await waitFor(() => expect(hook.result.current.status).toBe("ready"));
    act(() => FakeWebSocket.last().open());
    act(() => {
      FakeWebSocket.last().push({ type: "entry", item: makeEntry({ seq: 1, content: "from my phone", mode: "voice" }) });
      FakeWebSocket.last().push({ type: "entry", item: makeEntry({ seq: 2, content: "other session", session_id: "s2" }) });
    });
    expect(hook.result.current.messages.map((m) => m.content)).toEqual(["from my phone"]);
  });

  it("follows mode and language switches made in another tab, so its next message does not switch back", async () => {
    const server = new FakeServer();
    server.entries = [makeEntry({ seq: 1, content: "hello", language: "en" })];
    server.mode = "text";
    server.language = "en";
    const { hook } = setup(server);
    await waitFor(() => expect(hook.result.current.status).toBe("ready"));
    await act(async () => hook.result.current.switchLanguage("en"));
    expect(hook.result.current.mode).toBe("text");
    act(() => FakeWebSocket.last().open());
    // Tab A pressed Voice, then picked Arabic: this tab hears both events.
    act(() => {
      FakeWebSocket.last().push({ type: "event", item: makeEvent({ seq: 1, data: { from_mode: "text", to_mode: "voice" } }) });
      FakeWebSocket.last().push({
        type: "event",
        item: makeEvent({ seq: 2, event_type: "language_switch", data: { from_language: "en", to_language: "ar", trigger: "user_request" } }),
      });
    });
    expect(hook.result.current.mode).toBe("voice");
    expect(hook.result.current.language).toBe("ar");
    expect(hook.result.current.sessionLanguage).toBe("ar");
    await act(async () => {
      await hook.result.current.addMessage({ content: "مرحبا" });
    });
    expect(server.count("POST", "/v1/sessions/s1/entries")[0]?.body).toMatchObject({ mode: "voice", language: "ar" });
  });

  it("leaves Auto-detect on when another tab switches the language", async () => {
    const server = new FakeServer();
    server.entries = [makeEntry({ seq: 1, content: "hello", language: "en" })];
    const { hook } = setup(server);
    await waitFor(() => expect(hook.result.current.status).toBe("ready"));
    act(() =>
      FakeWebSocket.last().push({
        type: "event",
        item: makeEvent({ seq: 1, event_type: "language_switch", data: { from_language: "en", to_language: "es", trigger: "auto_detected" } }),
      }),
    );
    expect(hook.result.current.language).toBeNull();
    expect(hook.result.current.sessionLanguage).toBe("es");
  });

  it("takes the session's mode from the server when it reloads after a reconnect", async () => {
    const server = new FakeServer();
    server.entries = [makeEntry({ seq: 1, content: "hello" })];
    server.mode = "text";
    const { hook } = setup(server);
    await waitFor(() => expect(hook.result.current.status).toBe("ready"));
    act(() => FakeWebSocket.last().open());
    // Switched to voice elsewhere while this tab's socket was down.
    server.mode = "voice";
    act(() => FakeWebSocket.last().drop());
    await waitFor(() => expect(FakeWebSocket.instances.length).toBe(2), { timeout: 3000 });
    act(() => FakeWebSocket.last().open());
    await waitFor(() => expect(hook.result.current.mode).toBe("voice"));
  });

  it("records a mode switch on the server and shows its marker", async () => {
    const server = new FakeServer();
    server.entries = [makeEntry({ seq: 1 })];
    server.mode = "text";
    const { hook } = setup(server);
    await waitFor(() => expect(hook.result.current.status).toBe("ready"));
    await act(() => hook.result.current.switchMode("voice"));
    expect(hook.result.current.mode).toBe("voice");
    expect(server.count("POST", "/v1/sessions/s1/mode-switch")[0]?.body).toEqual({ from_mode: "text", to_mode: "voice" });
    expect(hook.result.current.timeline.filter((i) => i.kind === "event")).toHaveLength(1);

    await act(async () => {
      await hook.result.current.addMessage({ content: "spoken words" });
    });
    expect(server.entries.at(-1)?.mode).toBe("voice");
  });

  it("does not record a switch in a conversation that has no messages yet", async () => {
    const { hook, server } = setup();
    await waitFor(() => expect(hook.result.current.status).toBe("ready"));
    await act(() => hook.result.current.switchMode("voice"));
    expect(hook.result.current.mode).toBe("voice");
    expect(server.count("POST", "/v1/sessions/s1/mode-switch")).toHaveLength(0);
  });

  it("records a language switch chosen by the user with trigger user_request", async () => {
    const server = new FakeServer();
    server.entries = [makeEntry({ seq: 1, language: "en" })];
    server.language = "en";
    const { hook } = setup(server);
    await waitFor(() => expect(hook.result.current.sessionLanguage).toBe("en"));
    await act(() => hook.result.current.switchLanguage("ar"));
    expect(server.count("POST", "/v1/sessions/s1/language-switch")[0]?.body).toEqual({
      from_language: "en",
      to_language: "ar",
      trigger: "user_request",
    });
    await act(async () => {
      await hook.result.current.addMessage({ content: "مرحبا" });
    });
    expect(server.entries.at(-1)?.language).toBe("ar");
  });

  it("clearMemory deletes on the server with the scope and empties the history", async () => {
    const server = new FakeServer();
    server.entries = [makeEntry({ seq: 1 }), makeEntry({ seq: 2 })];
    const { hook } = setup(server);
    await waitFor(() => expect(hook.result.current.messages).toHaveLength(2));
    let total = 0;
    await act(async () => {
      const receipt = await hook.result.current.clearMemory("all");
      total = Object.values(receipt.counts).reduce((a, b) => a + b, 0);
    });
    expect(total).toBe(2);
    expect(server.count("DELETE", "/v1/me/memory?scope=all")).toHaveLength(1);
    expect(hook.result.current.messages).toEqual([]);
  });

  it("asks for a token when the server answers 401", async () => {
    const server = new FakeServer();
    server.failWith = 401;
    const { hook } = setup(server);
    await waitFor(() => expect(hook.result.current.authRequired).toBe(true));
    expect(hook.result.current.status).toBe("error");
  });

  it("removes a message that failed to store and keeps the error", async () => {
    const { hook, server } = setup();
    await waitFor(() => expect(hook.result.current.status).toBe("ready"));
    server.failWith = 503;
    await act(async () => {
      await expect(hook.result.current.addMessage({ content: "lost?" })).rejects.toMatchObject({ status: 503 });
    });
    expect(hook.result.current.messages).toEqual([]);
    expect(hook.result.current.error).toContain("503");
  });

  it("reloads what it missed after the live socket reconnects", async () => {
    const { hook, server } = setup();
    await waitFor(() => expect(hook.result.current.status).toBe("ready"));
    act(() => FakeWebSocket.last().open());
    server.entries.push(makeEntry({ seq: 1, content: "written while offline" }));
    act(() => FakeWebSocket.last().drop(1006));
    await waitFor(() => expect(FakeWebSocket.instances.length).toBe(2), { timeout: 3000 });
    act(() => FakeWebSocket.last().open());
    await waitFor(() => expect(hook.result.current.messages.map((m) => m.content)).toEqual(["written while offline"]));
  });

  it("stores what was heard of an interrupted answer", async () => {
    const server = new FakeServer();
    server.entries = [makeEntry({ seq: 1, role: "assistant", content: "Take one tablet twice a day with food." })];
    const { hook } = setup(server);
    await waitFor(() => expect(hook.result.current.messages).toHaveLength(1));
    const id = hook.result.current.messages[0]!.id;
    await act(async () => {
      await hook.result.current.markInterrupted(id, "Take one tablet");
    });
    expect(hook.result.current.messages[0]).toMatchObject({ content: "Take one tablet", metadata: { interrupted: true } });
  });

  it("fetches an answer again when another client marks it interrupted", async () => {
    const server = new FakeServer();
    const answer = makeEntry({ seq: 1, role: "assistant", content: "Take one tablet twice a day." });
    server.entries = [answer];
    const { hook } = setup(server);
    await waitFor(() => expect(hook.result.current.messages).toHaveLength(1));
    server.entries = [{ ...answer, content: "Take one", metadata: { interrupted: true } }];
    act(() =>
      FakeWebSocket.last().push({
        type: "event",
        item: makeEvent({ seq: 1, event_type: "interruption", data: { entry_id: answer.id } }),
      }),
    );
    await waitFor(() => expect(hook.result.current.messages[0]?.content).toBe("Take one"));
  });

  it("pages back through a long conversation with before_seq", async () => {
    const server = new FakeServer();
    server.entries = Array.from({ length: 5 }, (_, i) => makeEntry({ seq: i + 1, content: `m${i + 1}` }));
    const client = new ApiClient({ fetchImpl: server.fetch, baseUrl: "http://test.local" });
    const hook = renderHook(() =>
      useUnifiedMemory({ sessionId: "s1", client, WebSocketImpl: asWebSocket, historyLimit: 2 }),
    );
    await waitFor(() => expect(hook.result.current.messages.map((m) => m.content)).toEqual(["m4", "m5"]));
    expect(hook.result.current.hasEarlier).toBe(true);
    await act(() => hook.result.current.loadEarlier());
    expect(hook.result.current.messages.map((m) => m.content)).toEqual(["m2", "m3", "m4", "m5"]);
    expect(server.requests.at(-1)?.path).toBe("/v1/sessions/s1/history?max_messages=2&before_seq=4&reveal=true");
    await act(() => hook.result.current.loadEarlier());
    expect(hook.result.current.messages).toHaveLength(5);
    expect(hook.result.current.hasEarlier).toBe(false);
  });
});
