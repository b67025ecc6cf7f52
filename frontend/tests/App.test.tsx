import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { App } from "../src/App";
import { ApiClient } from "../src/api/client";
import type { RecognitionLike, RecognitionResultEvent } from "../src/hooks/useSpeech";
import { asWebSocket, FakeServer, FakeWebSocket, makeEntry, makeSession } from "./fakes";

/** A stand-in for the browser's SpeechRecognition that the test speaks into. */
class StubRecognition implements RecognitionLike {
  static current: StubRecognition | null = null;
  lang = "";
  interimResults = false;
  continuous = false;
  maxAlternatives = 1;
  onresult: ((event: RecognitionResultEvent) => void) | null = null;
  onerror: ((event: { error: string }) => void) | null = null;
  onend: (() => void) | null = null;
  start() {
    StubRecognition.current = this;
  }
  stop() {
    StubRecognition.current = null;
    this.onend?.();
  }
  abort() {
    this.stop();
  }
  say(text: string, isFinal = true) {
    this.onresult?.({ resultIndex: 0, results: [{ isFinal, 0: { transcript: text } }] });
    if (isFinal) this.stop();
  }
}

function renderApp(server = new FakeServer()) {
  const client = new ApiClient({ fetchImpl: server.fetch, baseUrl: "http://test.local" });
  render(<App client={client} WebSocketImpl={asWebSocket} />);
  return server;
}

beforeEach(() => {
  FakeWebSocket.reset();
  window.history.replaceState(null, "", "/?session=app-test");
});
afterEach(() => {
  delete (window as { SpeechRecognition?: unknown }).SpeechRecognition;
  window.localStorage.clear();
});

describe("App", () => {
  it("keeps a typed and a spoken message in one history, with their modes", async () => {
    (window as { SpeechRecognition?: unknown }).SpeechRecognition = StubRecognition;
    const user = userEvent.setup();
    const server = renderApp();
    await screen.findByTestId("history-empty");

    await user.type(screen.getByLabelText("Message"), "What is metformin for?{Enter}");
    await waitFor(() => expect(screen.getAllByTestId("message")).toHaveLength(1));

    await user.click(screen.getByRole("button", { name: "Voice" }));
    expect(server.count("POST", "/v1/sessions/app-test/mode-switch")).toHaveLength(1);
    await user.click(screen.getByRole("button", { name: "Press to talk" }));
    act(() => StubRecognition.current!.say("and the dose", false));
    expect(await screen.findByTestId("interim")).toHaveTextContent("and the dose");
    act(() => StubRecognition.current!.say("and the dose please"));

    await waitFor(() => expect(screen.getAllByTestId("message")).toHaveLength(2));
    const [typed, spoken] = screen.getAllByTestId("message");
    expect(typed).toHaveAttribute("data-mode", "text");
    expect(spoken).toHaveAttribute("data-mode", "voice");
    expect(within(spoken!).getByTestId("message-content")).toHaveTextContent("and the dose please");
    expect(screen.getByTestId("marker")).toHaveTextContent("Switched to voice");
    expect(server.entries.map((e) => [e.mode, e.content])).toEqual([
      ["text", "What is metformin for?"],
      ["voice", "and the dose please"],
    ]);
  });

  it("says when the browser has no speech recognition and stays usable by typing", async () => {
    const user = userEvent.setup();
    renderApp();
    await screen.findByTestId("history-empty");
    await user.click(screen.getByRole("button", { name: "Voice" }));
    expect(screen.getByTestId("voice-unsupported")).toHaveTextContent("no speech recognition");
    await user.click(screen.getByRole("button", { name: "Text" }));
    await user.type(screen.getByLabelText("Message"), "still here{Enter}");
    await waitFor(() => expect(screen.getAllByTestId("message")).toHaveLength(1));
  });

  it("keeps the session id in the address so a refresh shows the same conversation", async () => {
    window.history.replaceState(null, "", "/");
    renderApp();
    await screen.findByTestId("history-empty");
    const id = new URL(window.location.href).searchParams.get("session");
    expect(id).toMatch(/^web-/);
    expect(window.localStorage.getItem("unimem.session")).toBe(id);
    expect(FakeWebSocket.last().url).toContain(`/v1/sessions/${id}/live`);
  });

  it("says a saved token was refused, and never shows Sign out with Not signed in", async () => {
    const user = userEvent.setup();
    const server = new FakeServer();
    server.requireToken = "tok-123";
    window.localStorage.setItem("unimem.token", "not-a-token");
    vi.spyOn(globalThis, "fetch").mockImplementation((input) => server.fetch(input as Request));
    render(<App WebSocketImpl={asWebSocket} />);
    expect(await screen.findByTestId("token-error")).toHaveTextContent(
      "The server did not accept this token (missing credentials)",
    );
    act(() => FakeWebSocket.last().drop(4401));
    expect(screen.getByTestId("live-status")).toHaveTextContent("Not signed in");
    expect(screen.queryByRole("button", { name: "Sign out" })).not.toBeInTheDocument();

    await user.clear(screen.getByLabelText("Access token"));
    await user.type(screen.getByLabelText("Access token"), "tok-123");
    await user.click(screen.getByRole("button", { name: "Use token" }));
    expect(await screen.findByLabelText("Message")).toBeInTheDocument();
    expect(screen.queryByTestId("token-error")).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Sign out" })).toBeInTheDocument();
  });

  it("lists past conversations with date, first line, modes and languages, and opens one", async () => {
    const user = userEvent.setup();
    const server = new FakeServer();
    server.sessions = [
      makeSession({ session_id: "app-test", message_count: 0 }),
      makeSession({
        session_id: "visit-1",
        started_at: "2026-03-04T09:30:00Z",
        message_count: 2,
        modes_used: ["text", "voice"],
        languages_used: ["en", "es"],
      }),
    ];
    server.histories["visit-1"] = [
      makeEntry({ seq: 1, session_id: "visit-1", content: "My knee hurts when I climb stairs" }),
      makeEntry({ seq: 2, session_id: "visit-1", content: "y también por la noche", mode: "voice", language: "es" }),
    ];
    server.histories["app-test"] = [];
    renderApp(server);
    const list = await screen.findByTestId("conversation-list");
    const [current, past] = within(list).getAllByTestId("conversation");
    expect(current).toHaveAttribute("aria-current", "true");
    await waitFor(() => expect(past).toHaveTextContent("My knee hurts when I climb stairs"));
    expect(within(past!).getAllByTestId("conversation-mode").map((b) => b.textContent?.trim())).toEqual(["text", "voice"]);
    expect(within(past!).getAllByTestId("conversation-language").map((b) => b.textContent)).toEqual(["English", "Spanish"]);
    expect(within(past!).getByRole("time")).toHaveAttribute("dateTime", "2026-03-04T09:30:00Z");

    await user.click(past!);
    await screen.findByText("y también por la noche");
    expect(new URL(window.location.href).searchParams.get("session")).toBe("visit-1");
    expect(FakeWebSocket.last().url).toContain("/v1/sessions/visit-1/live");
    // The header names it by its date and first words, never by its raw id.
    const label = screen.getByTestId("session-label");
    await waitFor(() => expect(label).toHaveTextContent("My knee hurts when I climb"));
    expect(label).not.toHaveTextContent("visit-1");
  });

  it("asks for a token when the server has auth on, then uses it", async () => {
    const user = userEvent.setup();
    const server = new FakeServer();
    server.requireToken = "tok-123";
    const client = (token: string | null) =>
      new ApiClient({ fetchImpl: server.fetch, baseUrl: "http://test.local", getToken: () => token });
    // The app builds its own client from the saved token.
    const { unmount } = render(<App WebSocketImpl={asWebSocket} client={client(null)} />);
    expect(await screen.findByRole("heading", { name: "Sign in" })).toBeInTheDocument();
    expect(screen.getByLabelText("Access token")).toHaveAttribute("type", "password");
    expect(screen.queryByLabelText("Message")).not.toBeInTheDocument();
    unmount();

    window.localStorage.setItem("unimem.token", "tok-123");
    const fetchSpy = vi.spyOn(globalThis, "fetch").mockImplementation((input) => server.fetch(input as Request));
    render(<App WebSocketImpl={asWebSocket} />);
    await user.type(await screen.findByLabelText("Message"), "hello{Enter}");
    await waitFor(() => expect(server.entries).toHaveLength(1));
    expect(fetchSpy).toHaveBeenCalled();
    expect(server.count("POST", "/v1/sessions/app-test/entries")[0]?.headers.Authorization).toBe("Bearer tok-123");
    expect(FakeWebSocket.last().url).not.toContain("tok-123");
    expect(FakeWebSocket.last().protocols).toEqual(["unimem.v1", "bearer.tok-123"]);
    expect(screen.queryByRole("heading", { name: "Sign in" })).not.toBeInTheDocument();
  });
});
