import { describe, expect, it } from "vitest";

import { conversationLabel } from "../src/lib/conversations";
import { deletionSummary } from "../src/lib/receipt";

const receipt = (scope: string, counts: Record<string, number>) => ({
  user_id: "local",
  scope,
  deleted_at: "2026-01-01T00:00:00Z",
  counts,
});

describe("deletionSummary", () => {
  it("says what was deleted in plain words, counting messages", () => {
    expect(deletionSummary(receipt("day", { entries: 17, events: 4, sessions: 1, summaries: 0, facts: 0 }))).toBe(
      "Deleted today's conversations: 17 messages.",
    );
    expect(deletionSummary(receipt("session", { entries: 1, events: 0, sessions: 1 }))).toBe(
      "Deleted this conversation: 1 message.",
    );
    expect(deletionSummary(receipt("all", { entries: 40, events: 9, sessions: 3, summaries: 2, facts: 2 }))).toBe(
      "Deleted all of your memory: 40 messages in 3 conversations, 2 saved facts.",
    );
  });

  it("says when there was nothing to delete", () => {
    expect(deletionSummary(receipt("day", { entries: 0, events: 0, sessions: 0 }))).toBe(
      "Nothing to delete: today's conversations held no messages.",
    );
  });
});

describe("conversationLabel", () => {
  it("names a conversation by its date and first words, never its id", () => {
    const label = conversationLabel("2026-03-04T09:30:00Z", "My knee hurts when I climb the stairs at night, and in the morning", "en-GB");
    expect(label).toMatch(/^4 Mar, \d\d:30 · My knee hurts when I climb the stairs at…$/);
    expect(conversationLabel(null, null)).toBe("No messages yet");
  });
});
