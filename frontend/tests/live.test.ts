import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { connectLive, parseLive, type LiveStatus } from "../src/api/live";
import { asWebSocket, FakeWebSocket, makeEntry, makeEvent } from "./fakes";

describe("parseLive", () => {
  it("reads entry and event frames in the server's {type, item} shape", () => {
    const entry = makeEntry();
    const event = makeEvent();
    expect(parseLive(JSON.stringify({ type: "entry", item: entry }))).toEqual({ kind: "entry", item: entry });
    expect(parseLive(JSON.stringify({ type: "event", item: event }))).toEqual({ kind: "event", item: event });
    expect(parseLive(JSON.stringify({ type: "ready", session_id: "s1" }))).toBeNull();
  });

  it("ignores frames it does not understand instead of throwing", () => {
    expect(parseLive("not json")).toBeNull();
    expect(parseLive(JSON.stringify({ type: "pong" }))).toBeNull();
    expect(parseLive(JSON.stringify({ type: "entry", item: { no: "id" } }))).toBeNull();
    expect(parseLive("[1,2]")).toBeNull();
  });
});

describe("connectLive", () => {
  beforeEach(() => {
    FakeWebSocket.reset();
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("delivers frames, reconnects after a drop and says it reconnected", () => {
    const statuses: LiveStatus[] = [];
    const opens: boolean[] = [];
    const received: unknown[] = [];
    const conn = connectLive({
      url: () => "ws://x/v1/sessions/s1/live",
      onMessage: (m) => received.push(m),
      onStatus: (s) => statuses.push(s),
      onOpen: (r) => opens.push(r),
      WebSocketImpl: asWebSocket,
    });
    FakeWebSocket.last().open();
    FakeWebSocket.last().push({ type: "entry", item: makeEntry() });
    expect(received).toHaveLength(1);

    FakeWebSocket.last().drop(1006);
    expect(statuses.at(-1)).toBe("closed");
    vi.advanceTimersByTime(1000);
    expect(FakeWebSocket.instances).toHaveLength(2);
    FakeWebSocket.last().open();
    expect(opens).toEqual([false, true]);
    expect(statuses.at(-1)).toBe("open");
    conn.close();
  });

  it("stops and reports unauthorized when the server refuses the token", () => {
    const statuses: LiveStatus[] = [];
    connectLive({ url: () => "ws://x", onMessage: () => {}, onStatus: (s) => statuses.push(s), WebSocketImpl: asWebSocket });
    FakeWebSocket.last().drop(4401);
    vi.advanceTimersByTime(60_000);
    expect(statuses.at(-1)).toBe("unauthorized");
    expect(FakeWebSocket.instances).toHaveLength(1);
  });

  it("offers the subprotocols it is given on every connect", () => {
    let token = "one";
    connectLive({
      url: () => "ws://x/v1/sessions/s1/live",
      protocols: () => ["unimem.v1", `bearer.${token}`],
      onMessage: () => {},
      onStatus: () => {},
      WebSocketImpl: asWebSocket,
    });
    expect(FakeWebSocket.last().protocols).toEqual(["unimem.v1", "bearer.one"]);
    token = "two";
    FakeWebSocket.last().drop(1006);
    vi.advanceTimersByTime(60_000);
    expect(FakeWebSocket.last().protocols).toEqual(["unimem.v1", "bearer.two"]);
    expect(FakeWebSocket.last().url).toBe("ws://x/v1/sessions/s1/live");
  });

  it("reports unauthorized, without retrying, when the token cannot be a subprotocol", () => {
    const statuses: LiveStatus[] = [];
    class Refusing {
      constructor() {
        throw new DOMException("The subprotocol 'bearer.a b' is invalid.", "SyntaxError");
      }
    }
    connectLive({
      url: () => "ws://x",
      protocols: () => ["unimem.v1", "bearer.a b"],
      onMessage: () => {},
      onStatus: (s) => statuses.push(s),
      WebSocketImpl: Refusing as unknown as typeof WebSocket,
    });
    vi.advanceTimersByTime(60_000);
    expect(statuses).toEqual(["connecting", "unauthorized"]);
  });

  it("does not reconnect after close()", () => {
    const conn = connectLive({ url: () => "ws://x", onMessage: () => {}, onStatus: () => {}, WebSocketImpl: asWebSocket });
    const ws = FakeWebSocket.last();
    conn.close();
    ws.drop(1000);
    vi.advanceTimersByTime(60_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
  });
});
