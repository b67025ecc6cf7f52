/**
 * The shapes of the unimem HTTP API, named for the UI.
 *
 * Every type here is derived from `schema.ts`, which `npm run gen:api`
 * generates from the server's OpenAPI document (`/openapi.json`): nothing is
 * written by hand, so an API change that the UI does not follow fails
 * `npm run build`.
 */

import type { components, operations } from "./schema";

type Schemas = components["schemas"];

/**
 * A model as the server sends it. The schema marks fields with a default as
 * optional (a request may leave them out), but a response carries every field:
 * the server serializes whole models.
 */
export type Stored<T> = T extends Blob
  ? T
  : T extends (infer U)[]
  ? Stored<U>[]
  : T extends object
    ? { [K in keyof T]-?: Stored<Exclude<T[K], undefined>> }
    : T;

export type Mode = Schemas["Mode"];
export type Role = Schemas["Role"];
export type SwitchTrigger = Schemas["SwitchTrigger"];
export type DeleteScope = operations["delete_user_memory"]["parameters"]["query"]["scope"];

/** One stored message of a conversation. */
export type MemoryEntry = Stored<Schemas["MemoryEntry"]>;
/** What a client sends to store a message; the server fills the rest. */
export type NewEntry = Schemas["MemoryEntry"];
/** Something that happened in a session (mode or language switch, ...). */
export type MemoryEvent = Stored<Schemas["MemoryEvent"]>;
/** The memory and privacy preferences of a user. */
export type MemorySettings = Stored<Schemas["MemorySettings"]>;
/** What the server knows about a session besides its messages. */
export type SessionInfo = Stored<Schemas["SessionInfo"]>;
/** One page of the caller's sessions, most recently active first. */
export type SessionPage = Stored<Schemas["SessionPage"]>;
export type ConversationContext = Stored<Schemas["ConversationContext"]>;
export type LlmContextRequest = Schemas["LlmContextIn"];
export type LlmContext = Stored<Schemas["LlmContextOut"]>;
export type DeletionReceipt = Stored<Schemas["DeletionReceipt"]>;
/** One thing a search of the caller's memory found (a turn, a pinned fact, a summary). */
export type MemoryHit = Stored<Schemas["MemoryHit"]>;
/** `GET /v1/me/search`: the hits, best first. */
export type SearchResults = Stored<Schemas["SearchResults"]>;
/** The filters of `GET /v1/me/search` besides the query. */
export type SearchOptions = Omit<NonNullable<operations["search_memory"]["parameters"]["query"]>, "q">;
/** `GET /v1/config`: what this server offers. */
export type ServerConfig = Stored<Schemas["ServerConfig"]>;
/** `/healthz`: the process answers, and whether it runs in local mode. */
export type Health = Stored<Schemas["Status"]>;
/** `POST /v1/sessions/{id}/reply`: answer the last user turn (or `current_query`). */
export type ReplyRequest = Schemas["ReplyIn"];
/** A fact about the user: pinned by hand, or found in the conversation (with its history). */
export type Fact = Stored<Schemas["Fact"]>;
/** `POST /v1/me/facts/{id}/correct`: the right value (the old one is kept as history). */
export type FactCorrection = Schemas["FactCorrection"];
/** The JSON body of every error response. */
export type ErrorBody = Schemas["ErrorBody"];
