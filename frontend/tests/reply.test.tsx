import { act, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { App } from "../src/App";
import { ApiClient, ApiError, parseSseBlock } from "../src/api/client";
import { parseLive } from "../src/api/live";
import { asWebSocket, FakeServer, FakeWebSocket, makeEntry, makeEvent } from "./fakes";

/** A fetch answering one SSE body, delivered in the given byte-split chunks. */
function sseFetch(chunks: string[], status = 200) {
  return async (): Promise<Response> => {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    });
    return new Response(body, { status, headers: { "Content-Type": "text/event-stream" } });
  };
}

describe("streamReply", () => {
  it("hands over each piece and resolves to the stored entry, whatever the chunking", async () => {
    const stored = makeEntry({ role: "assistant", content: "Take it with food.", seq: 2 });
    const wire =
      'event: delta\ndata: {"text":"Take it"}\n\n' +
      'event: delta\ndata: {"text":" with food."}\n\n' +
      `event: done\ndata: ${JSON.stringify(stored)}\n\n`;
    // Split mid-line and mid-separator: frames must still come out whole.
    const chunks = [wire.slice(0, 17), wire.slice(17, 45), wire.slice(45, 46), wire.slice(46)];
    const pieces: string[] = [];
    const client = new ApiClient({ fetchImpl: sseFetch(chunks) });
    const entry = await client.streamReply("s1", {}, (t) => pieces.push(t));
    expect(pieces).toEqual(["Take it", " with food."]);
    expect(entry).toEqual(stored);
  });

  it("turns an error event or a cut-off stream into an ApiError", async () => {
    const failing = new ApiClient({
      fetchImpl: sseFetch(['event: delta\ndata: {"text":"Hi"}\n\nevent: error\ndata: {"code":"llm_error","message":"LLM stream cut off"}\n\n']),
    });
    await expect(failing.streamReply("s1", {}, () => undefined)).rejects.toMatchObject({ status: 502, code: "llm_error" });
    const cut = new ApiClient({ fetchImpl: sseFetch(['event: delta\ndata: {"text":"Hi"}\n\n']) });
    await expect(cut.streamReply("s1", {}, () => undefined)).rejects.toBeInstanceOf(ApiError);
  });

  it("reports the server's 502/504 JSON errors before any streaming", async () => {
    const fetchImpl = async () =>
      new Response(JSON.stringify({ code: "llm_error", message: "LLM endpoint did not answer in 5 s" }), { status: 504 });
    const error = await new ApiClient({ fetchImpl }).streamReply("s1", {}, () => undefined).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 504, code: "llm_error" });
  });

  it("resolves to null when the caller aborts (barge-in)", async () => {
    const controller = new AbortController();
    const fetchImpl = async (request: Request): Promise<Response> => {
      const body = new ReadableStream<Uint8Array>({
        start(stream) {
          stream.enqueue(new TextEncoder().encode('event: delta\ndata: {"text":"Once"}\n\n'));
          request.signal.addEventListener("abort", () => stream.error(new DOMException("aborted", "AbortError")));
        },
      });
      return new Response(body, { status: 200 });
    };
    const pieces: string[] = [];
    const pending = new ApiClient({ fetchImpl }).streamReply("s1", {}, (t) => {
      pieces.push(t);
      controller.abort();
    }, controller.signal);
    await expect(pending).resolves.toBeNull();
    expect(pieces).toEqual(["Once"]);
  });

  it("parses SSE blocks", () => {
    expect(parseSseBlock('event: delta\ndata: {"text":"a"}')).toEqual({ event: "delta", data: { text: "a" } });
    expect(parseSseBlock(": comment")).toBeNull();
    expect(parseSseBlock("data: not json")).toBeNull();
  });
});

describe("memory_deleted", () => {
  beforeEach(() => {
    FakeWebSocket.reset();
    window.history.replaceState(null, "", "/?session=reply-test");
  });
  afterEach(() => window.localStorage.clear());

  it("is read from the live socket", () => {
    const item = makeEvent({ event_type: "memory_deleted", data: { scope: "all" } });
    expect(parseLive(JSON.stringify({ type: "memory_deleted", item }))).toEqual({ kind: "memory_deleted", item });
  });

  it("clears a tab when memory is deleted elsewhere", async () => {
    const server = new FakeServer();
    server.entries.push(makeEntry({ seq: 1, session_id: "reply-test", content: "kept until deleted" }));
    const client = new ApiClient({ fetchImpl: server.fetch, baseUrl: "http://test.local" });
    render(<App client={client} WebSocketImpl={asWebSocket} />);
    await screen.findByText("kept until deleted");
    server.entries = []; // deleted from another tab
    act(() => FakeWebSocket.last().push({ type: "memory_deleted", item: makeEvent({ event_type: "memory_deleted" }) }));
    await screen.findByTestId("history-empty");
  });
});

describe("App with an assistant", () => {
  beforeEach(() => {
    FakeWebSocket.reset();
    window.history.replaceState(null, "", "/?session=reply-app");
  });
  afterEach(() => window.localStorage.clear());

  it("asks for a reply after each user turn and shows it", async () => {
    const server = new FakeServer();
    server.replyPieces = ["Metformin lowers", " blood sugar."];
    const client = new ApiClient({ fetchImpl: server.fetch, baseUrl: "http://test.local" });
    const user = userEvent.setup();
    render(<App client={client} WebSocketImpl={asWebSocket} />);
    await screen.findByTestId("assistant-on");
    expect(screen.queryByTestId("no-assistant")).toBeNull();
    await user.type(screen.getByLabelText("Message"), "What is metformin for?{Enter}");
    await screen.findByText("Metformin lowers blood sugar.");
    await waitFor(() => expect(screen.queryByTestId("streaming-reply")).toBeNull());
    expect(server.count("POST", "/v1/sessions/reply-app/reply")).toHaveLength(1);
    expect(server.entries.map((e) => e.role)).toEqual(["user", "assistant"]);
  });

  it("does not ask for replies when the server has no assistant", async () => {
    const server = new FakeServer();
    const client = new ApiClient({ fetchImpl: server.fetch, baseUrl: "http://test.local" });
    const user = userEvent.setup();
    render(<App client={client} WebSocketImpl={asWebSocket} />);
    await screen.findByTestId("history-empty");
    await user.type(screen.getByLabelText("Message"), "hello{Enter}");
    await screen.findByText("hello");
    expect(server.count("POST", "/v1/sessions/reply-app/reply")).toHaveLength(0);
    expect(screen.queryByTestId("assistant-on")).toBeNull();
    // ...and the chat says so, so silence is not mistaken for a slow answer.
    expect(screen.getByRole("region", { name: "Chat" })).toContainElement(screen.getByTestId("no-assistant"));
    expect(screen.getByTestId("no-assistant")).toHaveTextContent("No assistant is connected: messages are remembered, but nothing answers them.");
  });
});
