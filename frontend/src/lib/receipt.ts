/** What a deletion removed, said in plain words. */

import type { DeleteScope, DeletionReceipt } from "../api/models";

const WHAT: Record<DeleteScope, string> = {
  session: "this conversation",
  day: "today's conversations",
  all: "all of your memory",
};

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "Deleted today's conversations: 17 messages." for a receipt of scope `day`. */
export function deletionSummary(receipt: DeletionReceipt): string {
  const what = WHAT[receipt.scope as DeleteScope] ?? "your memory";
  const messages = receipt.counts.entries ?? 0;
  const conversations = receipt.counts.sessions ?? 0;
  const facts = receipt.counts.facts ?? 0;
  if (messages === 0 && facts === 0) return `Nothing to delete: ${what} held no messages.`;
  let text = count(messages, "message", "messages");
  if (conversations > 1) text += ` in ${count(conversations, "conversation", "conversations")}`;
  if (facts > 0) text += `, ${count(facts, "saved fact", "saved facts")}`;
  return `Deleted ${what}: ${text}.`;
}
