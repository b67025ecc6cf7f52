/**
 * One timeline out of a session's entries and events.
 *
 * Entries and events are numbered separately by the server, so events are
 * placed by what they refer to: an event caused by an entry carries
 * `data.entry_seq` and goes just before that entry; an explicit event (the
 * user pressed "Voice") goes after the last entry written before it.
 */

import type { MemoryEntry, MemoryEvent } from "../api/models";

export type TimelineItem =
  | { kind: "entry"; key: string; entry: MemoryEntry }
  | { kind: "event"; key: string; event: MemoryEvent };

/** Event types drawn as markers between messages. */
export const MARKER_EVENTS = new Set(["mode_switch", "language_switch", "session_closed"]);

function time(value: string | null): number {
  if (!value) return Number.POSITIVE_INFINITY;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? Number.POSITIVE_INFINITY : parsed;
}

/** Entries in timeline order: by `seq`, unsaved ones (no seq yet) last. */
export function sortEntries(entries: MemoryEntry[]): MemoryEntry[] {
  return [...entries].sort(
    (a, b) => (a.seq ?? Number.MAX_SAFE_INTEGER) - (b.seq ?? Number.MAX_SAFE_INTEGER),
  );
}

/** Insert or replace by `id`, keeping arrival order for new ids. */
export function upsertById<T extends { id: string }>(items: T[], item: T): T[] {
  const index = items.findIndex((existing) => existing.id === item.id);
  if (index === -1) return [...items, item];
  const copy = items.slice();
  copy[index] = item;
  return copy;
}

/** Merge two lists by `id`, the second one winning. */
export function mergeById<T extends { id: string }>(items: T[], incoming: T[]): T[] {
  return incoming.reduce(upsertById, items);
}

/** Entries and marker events interleaved in the order they happened. */
export function buildTimeline(entries: MemoryEntry[], events: MemoryEvent[]): TimelineItem[] {
  const sorted = sortEntries(entries);
  const keyed: { position: number; tie: number; item: TimelineItem }[] = sorted.map(
    (entry, index) => ({
      position: entry.seq ?? sorted.length + index + 1,
      tie: 1,
      item: { kind: "entry", key: `entry:${entry.id}`, entry },
    }),
  );
  for (const event of events) {
    if (!MARKER_EVENTS.has(event.event_type)) continue;
    const entrySeq = event.data.entry_seq;
    let position: number;
    if (typeof entrySeq === "number") {
      position = entrySeq;
    } else {
      const at = time(event.timestamp);
      let after = 0;
      for (const entry of sorted) {
        if (entry.seq !== null && time(entry.timestamp) <= at) after = entry.seq;
      }
      position = after + 0.5;
    }
    keyed.push({
      position,
      tie: 0,
      item: { kind: "event", key: `event:${event.id}`, event },
    });
  }
  return keyed
    .map((k, index) => ({ ...k, index }))
    .sort((a, b) => a.position - b.position || a.tie - b.tie || a.index - b.index)
    .map((k) => k.item);
}
