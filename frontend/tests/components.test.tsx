import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";

import { ApiClient } from "../src/api/client";
import type { Mode } from "../src/api/models";
import { ChatHistory } from "../src/components/ChatHistory";
import { ContextInspector } from "../src/components/ContextInspector";
import { ModeSwitch } from "../src/components/ModeSwitch";
import { PrivacyPanel } from "../src/components/PrivacyPanel";
import { buildTimeline } from "../src/lib/timeline";
import { FakeServer, makeEntry, makeEvent } from "./fakes";

describe("ModeSwitch", () => {
  it("marks the current mode with aria-pressed", () => {
    render(<ModeSwitch mode="voice" onSwitch={() => {}} />);
    expect(screen.getByRole("button", { name: "Voice" })).toHaveAttribute("aria-pressed", "true");
    expect(screen.getByRole("button", { name: "Text" })).toHaveAttribute("aria-pressed", "false");
    expect(screen.getByRole("group", { name: "Input mode" })).toBeInTheDocument();
  });

  it("is usable from the keyboard: Tab, Enter, Space and arrow keys", async () => {
    const user = userEvent.setup();
    const onSwitch = vi.fn<(m: Mode) => void>();
    render(<ModeSwitch mode="text" onSwitch={onSwitch} />);
    await user.tab();
    expect(screen.getByRole("button", { name: "Text" })).toHaveFocus();
    await user.tab();
    expect(screen.getByRole("button", { name: "Voice" })).toHaveFocus();
    await user.keyboard("{Enter}");
    expect(onSwitch).toHaveBeenLastCalledWith("voice");
    await user.keyboard(" ");
    expect(onSwitch).toHaveBeenCalledTimes(2);
    screen.getByRole("button", { name: "Text" }).focus();
    await user.keyboard("{ArrowRight}");
    expect(onSwitch).toHaveBeenLastCalledWith("voice");
    expect(screen.getByRole("button", { name: "Voice" })).toHaveFocus();
  });
});

describe("ChatHistory", () => {
  it("shows each message's mode and language, with a switch marker between them", () => {
    const typed = makeEntry({ seq: 1, content: "What is metformin for?", mode: "text", language: "en" });
    const spoken = makeEntry({ seq: 2, content: "and the dose", mode: "voice", language: "en" });
    const marker = makeEvent({ seq: 1, data: { from_mode: "text", to_mode: "voice", entry_seq: 2 } });
    render(<ChatHistory timeline={buildTimeline([typed, spoken], [marker])} />);
    const log = screen.getByRole("log", { name: "Conversation" });
    const items = within(log).getAllByRole("listitem").filter((li) => !li.classList.contains("end"));
    expect(items.map((li) => li.dataset.testid)).toEqual(["message", "marker", "message"]);
    expect(items[0]).toHaveAttribute("data-mode", "text");
    expect(items[2]).toHaveAttribute("data-mode", "voice");
    expect(within(items[0]!).getByTestId("mode-badge")).toHaveTextContent("text");
    expect(within(items[2]!).getByTestId("mode-badge")).toHaveTextContent("voice");
    expect(within(items[2]!).getByTestId("language-badge")).toHaveTextContent("en");
    expect(items[1]).toHaveTextContent("Switched to voice from text");
  });

  it("renders Arabic and Urdu right to left and other text with dir=auto", () => {
    const timeline = buildTimeline(
      [
        makeEntry({ seq: 1, content: "ما هي الجرعة؟", language: "ar" }),
        makeEntry({ seq: 2, content: "خوراک کیا ہے؟", language: "ur" }),
        makeEntry({ seq: 3, content: "¿Y la dosis?", language: "es" }),
      ],
      [makeEvent({ event_type: "language_switch", data: { from_language: "ar", to_language: "ur", trigger: "auto_detected", entry_seq: 2 } })],
    );
    render(<ChatHistory timeline={timeline} />);
    const contents = screen.getAllByTestId("message-content");
    expect(contents.map((c) => c.getAttribute("dir"))).toEqual(["rtl", "rtl", "auto"]);
    expect(contents[0]).toHaveAttribute("lang", "ar");
    expect(screen.getByTestId("marker")).toHaveTextContent("Language: Arabic → Urdu (auto detected)");
  });

  it("puts retrieved sources under an assistant message, collapsed until opened", async () => {
    const answer = makeEntry({
      seq: 1,
      role: "assistant",
      content: "Metformin lowers blood sugar [1].",
      retrieved_passages: ["Metformin is a first-line medication for type 2 diabetes."],
      sources: [{ title: "Metformin monograph", url: "https://example.org/metformin" }],
    });
    render(<ChatHistory timeline={buildTimeline([answer], [])} />);
    const details = screen.getByText("1 source").closest("details")!;
    expect(details).not.toHaveAttribute("open");
    await userEvent.click(screen.getByText("1 source"));
    expect(details).toHaveAttribute("open");
    expect(screen.getByRole("link", { name: "Metformin monograph" })).toHaveAttribute("href", "https://example.org/metformin");
    expect(screen.getByText(/first-line medication/)).toBeInTheDocument();
  });

  it("shows an interrupted answer as what was heard, with the rest kept aside", () => {
    const cut = makeEntry({
      seq: 1,
      role: "assistant",
      mode: "voice",
      content: "Take one tablet",
      metadata: { interrupted: true, generated_text: "Take one tablet twice a day with meals." },
    });
    render(<ChatHistory timeline={buildTimeline([cut], [])} />);
    expect(screen.getByTestId("message-content")).toHaveTextContent(/^Take one tablet …$/);
    expect(screen.getByText("interrupted")).toBeInTheDocument();
    expect(screen.getByText("Full generated answer (not heard)")).toBeInTheDocument();
  });

  it("flags messages in which PHI was detected", () => {
    render(<ChatHistory timeline={buildTimeline([makeEntry({ seq: 1, content: "my ssn is [SSN]", phi_detected: true }), makeEntry({ seq: 2 })], [])} />);
    expect(screen.getAllByTestId("phi-badge")).toHaveLength(1);
  });

  it("says the conversation is empty when it is", () => {
    render(<ChatHistory timeline={[]} />);
    expect(screen.getByTestId("history-empty")).toHaveTextContent("No messages yet");
  });
});

describe("ContextInspector", () => {
  it("shows the messages an LLM would get and their token count", async () => {
    const inspect = vi.fn(async (query: string) => ({
      messages: [
        { role: "system", content: "You are a careful medical assistant." },
        { role: "user", content: query },
      ],
      token_count: 57,
      degradations: ["passages:3"],
      summary_used: false,
    }));
    render(<ContextInspector inspect={inspect} defaultQuery="and the dose?" />);
    await userEvent.click(screen.getByRole("button", { name: "Show context" }));
    expect(inspect).toHaveBeenCalledWith("and the dose?");
    expect(await screen.findByTestId("token-count")).toHaveTextContent("57");
    expect(screen.getByTestId("llm-context")).toHaveTextContent("degraded: passages:3");
    expect(screen.getByText("You are a careful medical assistant.")).toBeInTheDocument();
  });
});

describe("PrivacyPanel", () => {
  function setup() {
    const server = new FakeServer();
    const client = new ApiClient({ fetchImpl: server.fetch });
    const onDelete = vi.fn(async (scope: "session" | "day" | "all") => ({
      user_id: "local",
      scope,
      deleted_at: "2026-01-01T00:00:00Z",
      counts: { entries: 3, events: 1 },
    }));
    render(<PrivacyPanel client={client} onDelete={onDelete} />);
    return { server, onDelete };
  }

  it("loads the six settings and saves a change with PUT", async () => {
    const { server } = setup();
    const phi = await screen.findByLabelText("Redact health information");
    expect(phi).toBeChecked();
    for (const label of ["Remember conversations", "Use earlier conversations", "Keep voice transcripts", "Keep retrieved sources"]) {
      expect(screen.getByLabelText(label)).toBeChecked();
    }
    expect(screen.getByLabelText("Retention in days")).toHaveValue(30);
    await userEvent.click(screen.getByLabelText("Keep voice transcripts"));
    await waitFor(() => expect(server.settings.save_voice_transcripts).toBe(false));
    const put = server.count("PUT", "/v1/me/settings")[0]!;
    expect(put.body).toMatchObject({ save_voice_transcripts: false, anonymize_phi: true, retention_days: 30 });
    fireEvent.change(screen.getByLabelText("Retention in days"), { target: { value: "7" } });
    await waitFor(() => expect(server.settings.retention_days).toBe(7));
  });

  it("deletes only after confirmation, with the chosen scope", async () => {
    const { onDelete } = setup();
    await userEvent.click(screen.getByLabelText("Today"));
    await userEvent.click(screen.getByRole("button", { name: "Delete…" }));
    const dialog = screen.getByRole("alertdialog");
    expect(dialog).toHaveTextContent("Delete everything remembered from today?");
    await userEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(onDelete).not.toHaveBeenCalled();

    await userEvent.click(screen.getByLabelText("Everything"));
    await userEvent.click(screen.getByRole("button", { name: "Delete…" }));
    await userEvent.click(screen.getByRole("button", { name: "Yes, delete" }));
    expect(onDelete).toHaveBeenCalledExactlyOnceWith("all");
    expect(await screen.findByTestId("deletion-receipt")).toHaveTextContent("Deleted all of your memory: 3 messages.");
  });

  it("says before deleting everything that settings and the log of ids and counts are kept", async () => {
    setup();
    await userEvent.click(screen.getByLabelText("Everything"));
    await userEvent.click(screen.getByRole("button", { name: "Delete…" }));
    expect(screen.getByRole("alertdialog")).toHaveTextContent(
      /Kept: your settings, and the log of deletions and settings changes \(ids and counts only, never what was said\)/,
    );
  });

  it("clears the last deletion's result when the next deletion is asked for", async () => {
    setup();
    await userEvent.click(screen.getByLabelText("Today"));
    await userEvent.click(screen.getByRole("button", { name: "Delete…" }));
    await userEvent.click(screen.getByRole("button", { name: "Yes, delete" }));
    expect(await screen.findByTestId("deletion-receipt")).toHaveTextContent("Deleted today's conversations: 3 messages.");
    await userEvent.click(screen.getByRole("button", { name: "Delete…" }));
    expect(screen.getByRole("alertdialog")).toBeInTheDocument();
    expect(screen.queryByTestId("deletion-receipt")).not.toBeInTheDocument();
  });

  it.each(["0", "100000", "2.5"])("refuses a retention of %s days with a message instead of reverting it", async (value) => {
    const { server } = setup();
    const field = await screen.findByLabelText("Retention in days");
    fireEvent.change(field, { target: { value } });
    expect(await screen.findByRole("alert")).toHaveTextContent("Keep for 1 to 36500 days (a whole number). Not saved.");
    expect(field).toHaveValue(Number(value));
    expect(field).toHaveAttribute("aria-invalid", "true");
    expect(server.count("PUT", "/v1/me/settings")).toHaveLength(0);
    // A valid value clears the message and is saved.
    fireEvent.change(field, { target: { value: "14" } });
    await waitFor(() => expect(server.settings.retention_days).toBe(14));
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    expect(screen.getByTestId("settings-status")).toHaveTextContent("Settings saved.");
  });

  it("downloads the export as a JSON file", async () => {
    const { server } = setup();
    const createObjectURL = vi.fn(() => "blob:export");
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const clicked: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.download);
    });
    await userEvent.click(screen.getByRole("button", { name: "Export my data" }));
    await waitFor(() => expect(click).toHaveBeenCalled());
    expect(server.count("GET", "/v1/me/export")).toHaveLength(1);
    expect(clicked[0]).toMatch(/^unimem-export-\d{4}-\d{2}-\d{2}\.json$/);
  });
});
