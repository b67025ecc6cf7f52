/** Human labels for conversations: when they started and how they began. */

/** The first words of `text` on one line, cut at a word with "…" past `max` characters. */
export function firstWords(text: string, max = 48): string {
  const line = text.replace(/\s+/g, " ").trim();
  if (line.length <= max) return line;
  // One character more: a word ending right at `max` is kept whole.
  const space = line.slice(0, max + 1).lastIndexOf(" ");
  return `${line.slice(0, space > max / 2 ? space : max).trimEnd()}…`;
}

/** "1 Dec, 19:48" in `locale` (the browser's by default); "" for a missing or bad time. */
export function shortDate(value: string | null | undefined, locale?: string): string {
  if (!value) return "";
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return "";
  return date.toLocaleString(locale, { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
}

/**
 * The header's name for a conversation: its date and first words, e.g.
 * "1 Dec, 19:48 · What is metformin used for?"; "No messages yet" before
 * anything was said.
 */
export function conversationLabel(
  startedAt: string | null | undefined,
  firstLine: string | null | undefined,
  locale?: string,
): string {
  const date = shortDate(startedAt, locale);
  const words = firstLine ? firstWords(firstLine, 40) : "";
  if (!date && !words) return "No messages yet";
  return [date, words].filter(Boolean).join(" · ");
}
