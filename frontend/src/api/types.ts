/**
 * The shapes of the unimem HTTP API, as the UI uses them.
 *
 * They mirror the server's OpenAPI schema (`/openapi.json`, models from
 * `src/unimem/models.py`). `schema.ts` is generated from that document by
 * `npm run gen:api`; the compile-time checks at the bottom of this file fail
 * the build when these names drift from the generated ones.
 */

export type Mode = "voice" | "text";
export type Role = "user" | "assistant" | "system";
export type SwitchTrigger = "user_request" | "auto_detected" | "explicit_setting";
export type DeleteScope = "session" | "day" | "all";

export type JsonObject = Record<string, unknown>;

/** One stored message of a conversation. */
export interface MemoryEntry {
  id: string;
  session_id: string;
  user_id: string;
  timestamp: string | null;
  seq: number | null;
  role: Role;
  content: string;
  mode: Mode;
  language: string | null;
  detected_language: string | null;
  language_switched: boolean;
  retrieved_passages: string[];
  sources: JsonObject[];
  latency_ms: number | null;
  degradations: string[];
  phi_detected: boolean;
  metadata: JsonObject;
}

/** What a client sends to store a message; the server fills the rest. */
export interface NewEntry {
  role: Role;
  content: string;
  mode?: Mode;
  language?: string | null;
  id?: string;
  retrieved_passages?: string[];
  sources?: JsonObject[];
  metadata?: JsonObject;
}

/** Something that happened in a session (mode or language switch, ...). */
export interface MemoryEvent {
  id: string;
  session_id: string;
  user_id: string;
  seq: number | null;
  event_type: string;
  timestamp: string | null;
  data: JsonObject;
}

/** The six memory and privacy preferences of a user. */
export interface MemorySettings {
  enabled: boolean;
  retention_days: number;
  cross_session: boolean;
  save_voice_transcripts: boolean;
  save_rag_context: boolean;
  anonymize_phi: boolean;
}

export interface SessionInfo {
  session_id: string;
  user_id: string;
  started_at: string;
  last_active_at: string;
  closed_at: string | null;
  current_mode: Mode | null;
  current_language: string | null;
  message_count: number;
  event_count: number;
  modes_used: Mode[];
  languages_used: string[];
}

export interface ConversationContext {
  session_id: string;
  user_id: string;
  messages: MemoryEntry[];
  current_mode: Mode | null;
  current_language: string | null;
  language_events: MemoryEvent[];
  mode_events: MemoryEvent[];
  session: SessionInfo | null;
  degradations: string[];
}

export interface LlmContextRequest {
  current_query: string;
  rag_results?: JsonObject[] | null;
  max_tokens?: number;
  model?: string;
  budget_ms?: number | null;
}

export interface LlmMessage {
  role: string;
  content: string;
}

export interface LlmContext {
  messages: LlmMessage[];
  token_count: number;
  degradations: string[];
}

export interface DeletionReceipt {
  user_id: string;
  scope: string;
  deleted_at: string;
  counts: Record<string, number>;
}

/** A message pushed over the live WebSocket. */
export type LiveMessage =
  | { kind: "entry"; item: MemoryEntry }
  | { kind: "event"; item: MemoryEvent }
  | { kind: "deleted"; scope: string }
  | { kind: "delta"; entry_id: string; text: string };
