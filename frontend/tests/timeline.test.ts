import { describe, expect, it } from "vitest";

import { buildTimeline, mergeById, upsertById } from "../src/lib/timeline";
import { isRtl, textDir } from "../src/lib/language";
import { makeEntry, makeEvent } from "./fakes";

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, s)).toISOString();

describe("buildTimeline", () => {
  it("puts an event caused by an entry just before that entry", () => {
    const a = makeEntry({ seq: 1, timestamp: at(1) });
    const b = makeEntry({ seq: 2, timestamp: at(2), mode: "voice" });
    const switched = makeEvent({ seq: 1, timestamp: at(2), data: { from_mode: "text", to_mode: "voice", entry_seq: 2 } });
    const keys = buildTimeline([b, a], [switched]).map((i) => i.key);
    expect(keys).toEqual([`entry:${a.id}`, `event:${switched.id}`, `entry:${b.id}`]);
  });

  it("places an explicit switch after the last entry written before it", () => {
    const a = makeEntry({ seq: 1, timestamp: at(1) });
    const b = makeEntry({ seq: 2, timestamp: at(10) });
    const pressed = makeEvent({ seq: 1, timestamp: at(5), data: { from_mode: "text", to_mode: "voice" } });
    expect(buildTimeline([a, b], [pressed]).map((i) => i.kind)).toEqual(["entry", "event", "entry"]);
  });

  it("leaves out events that are not switch markers", () => {
    const a = makeEntry({ seq: 1 });
    const other = makeEvent({ event_type: "rag_retrieval" });
    expect(buildTimeline([a], [other])).toHaveLength(1);
  });

  it("keeps unsaved entries (no seq) last", () => {
    const draft = makeEntry({ seq: null });
    const saved = makeEntry({ seq: 1 });
    expect(buildTimeline([draft, saved], []).map((i) => i.key)).toEqual([`entry:${saved.id}`, `entry:${draft.id}`]);
  });
});

describe("merging by id", () => {
  it("replaces an item with the same id instead of duplicating it", () => {
    const a = makeEntry({ content: "old" });
    const merged = upsertById([a], { ...a, content: "new" });
    expect(merged).toHaveLength(1);
    expect(merged[0]?.content).toBe("new");
    expect(mergeById([a], [makeEntry()])).toHaveLength(2);
  });
});

describe("direction", () => {
  it("marks Arabic and Urdu right to left and leaves others to the browser", () => {
    expect(isRtl("ar")).toBe(true);
    expect(isRtl("ur")).toBe(true);
    expect(isRtl("ar-EG")).toBe(true);
    expect(isRtl("hi")).toBe(false);
    expect(textDir("ur")).toBe("rtl");
    expect(textDir("en")).toBe("auto");
    expect(textDir(null)).toBe("auto");
  });
});
