import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { App } from "../src/App";
import { ApiClient } from "../src/api/client";
import { MemorySearch } from "../src/components/MemorySearch";
import { asWebSocket, FakeServer, FakeWebSocket, makeEntry, makeSession } from "./fakes";

function clientFor(server: FakeServer): ApiClient {
  return new ApiClient({ fetchImpl: server.fetch, baseUrl: "http://test.local" });
}

function pastVisit(server: FakeServer): void {
  server.sessions = [
    makeSession({ session_id: "app-test", message_count: 0 }),
    makeSession({ session_id: "visit-1", message_count: 3, modes_used: ["voice"], languages_used: ["es"] }),
  ];
  server.histories["app-test"] = [];
  server.histories["visit-1"] = [
    makeEntry({ seq: 1, session_id: "visit-1", content: "good morning" }),
    makeEntry({
      id: "hit-1",
      seq: 2,
      session_id: "visit-1",
      content: "el cardiólogo cambió la dosis de lisinopril",
      mode: "voice",
      language: "es",
      timestamp: "2026-03-04T09:30:00Z",
    }),
    makeEntry({ seq: 3, session_id: "visit-1", content: "thank you" }),
  ];
}

describe("MemorySearch", () => {
  it("shows each hit's date, mode, language and snippet", async () => {
    const user = userEvent.setup();
    const server = new FakeServer();
    pastVisit(server);
    render(<MemorySearch client={clientFor(server)} onOpenAt={() => undefined} />);
    await user.type(screen.getByRole("searchbox", { name: "Search past conversations" }), "lisinopril{Enter}");
    const [hit] = await screen.findAllByTestId("search-hit");
    expect(within(hit!).getByTestId("search-hit-snippet")).toHaveTextContent(
      "el cardiólogo cambió la dosis de lisinopril",
    );
    expect(within(hit!).getByTestId("search-hit-mode")).toHaveTextContent("voice");
    expect(within(hit!).getByTestId("search-hit-language")).toHaveTextContent("Spanish");
    expect(within(hit!).getByTestId("search-hit-date")).toHaveAttribute("dateTime", "2026-03-04T09:30:00Z");
    const [request] = server.count("GET", "/v1/me/search");
    expect(request?.path).toContain("q=lisinopril");
    expect(request?.path).toContain("k=20");
  });

  it("says when nothing was found, and shows the server's error", async () => {
    const user = userEvent.setup();
    const server = new FakeServer();
    render(<MemorySearch client={clientFor(server)} onOpenAt={() => undefined} />);
    const box = screen.getByRole("searchbox", { name: "Search past conversations" });
    await user.type(box, "potassium{Enter}");
    expect(await screen.findByTestId("search-empty")).toHaveTextContent("Nothing found.");
    server.failWith = 503;
    await user.click(screen.getByRole("button", { name: "Search" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("503");
    expect(screen.queryByTestId("search-empty")).not.toBeInTheDocument();
  });

  it("does not search for blank input", async () => {
    const user = userEvent.setup();
    const server = new FakeServer();
    render(<MemorySearch client={clientFor(server)} onOpenAt={() => undefined} />);
    await user.type(screen.getByRole("searchbox", { name: "Search past conversations" }), "   {Enter}");
    expect(screen.getByRole("button", { name: "Search" })).toBeDisabled();
    expect(server.count("GET", "/v1/me/search")).toHaveLength(0);
  });
});

describe("opening a search hit", () => {
  beforeEach(() => {
    FakeWebSocket.reset();
    window.localStorage.clear();
    window.history.replaceState(null, "", "/?session=app-test");
  });
  afterEach(() => {
    vi.restoreAllMocks();
    delete (Element.prototype as { scrollIntoView?: unknown }).scrollIntoView;
  });

  it("opens its conversation scrolled to that turn, marked", async () => {
    const user = userEvent.setup();
    const scrolled: Element[] = [];
    // jsdom lays nothing out and has no scrollIntoView: record the calls
    Element.prototype.scrollIntoView = function (this: Element) {
      scrolled.push(this);
    };
    const server = new FakeServer();
    pastVisit(server);
    render(<App client={clientFor(server)} WebSocketImpl={asWebSocket} />);
    await user.type(await screen.findByRole("searchbox", { name: "Search past conversations" }), "lisinopril{Enter}");
    await user.click((await screen.findAllByTestId("search-hit"))[0]!);
    await screen.findByText("thank you");
    expect(new URL(window.location.href).searchParams.get("session")).toBe("visit-1");
    const focused = screen.getAllByTestId("message").filter((m) => m.getAttribute("data-focused") === "true");
    expect(focused.map((m) => m.getAttribute("data-entry-id"))).toEqual(["hit-1"]);
    await waitFor(() => expect(scrolled.at(-1)?.getAttribute("data-entry-id")).toBe("hit-1"));
  });
});
