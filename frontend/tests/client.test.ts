import { describe, expect, it } from "vitest";

import { ApiClient, ApiError } from "../src/api/client";
import { FakeServer } from "./fakes";

describe("ApiClient", () => {
  it("posts an entry to the session's entries endpoint and returns it as stored", async () => {
    const server = new FakeServer();
    const client = new ApiClient({ fetchImpl: server.fetch });
    const stored = await client.addEntry("visit/42", { role: "user", content: "hi", mode: "voice" });
    expect(stored.seq).toBe(1);
    expect(stored.mode).toBe("voice");
    const [request] = server.requests;
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/v1/sessions/visit%2F42/entries");
    expect(request?.body).toEqual({ role: "user", content: "hi", mode: "voice" });
    expect(request?.headers["Content-Type"]).toBe("application/json");
  });

  it("sends the bearer token only when there is one", async () => {
    const server = new FakeServer();
    let token: string | null = null;
    const client = new ApiClient({ fetchImpl: server.fetch, getToken: () => token });
    await client.getSettings();
    token = "abc.def.ghi";
    await client.getSettings();
    expect(server.requests[0]?.headers.Authorization).toBeUndefined();
    expect(server.requests[1]?.headers.Authorization).toBe("Bearer abc.def.ghi");
  });

  it("turns an error body into an ApiError with status, code and field", async () => {
    const fetchImpl = async () =>
      new Response(
        JSON.stringify({ error: { code: "invalid_input", message: "content: too long", field: "content" } }),
        { status: 422, headers: { "Content-Type": "application/json" } },
      );
    const client = new ApiClient({ fetchImpl });
    const error = await client.addEntry("s", { role: "user", content: "x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 422, code: "invalid_input", field: "content", message: "content: too long" });
  });

  it("reads FastAPI's plain {detail} errors too", async () => {
    const fetchImpl = async () => new Response(JSON.stringify({ detail: "Not authenticated" }), { status: 401 });
    const error = await new ApiClient({ fetchImpl }).getSettings().catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 401, message: "Not authenticated" });
  });

  it("reports an unreachable server as status 0", async () => {
    const fetchImpl = async (): Promise<Response> => {
      throw new TypeError("Failed to fetch");
    };
    const error = await new ApiClient({ fetchImpl }).getHistory("s").catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 0, code: "network_error" });
  });

  it("deletes with the scope, naming the session for scope=session", async () => {
    const server = new FakeServer();
    const client = new ApiClient({ fetchImpl: server.fetch });
    await client.deleteMemory("session", "s1");
    await client.deleteMemory("all", "s1");
    expect(server.requests.map((r) => r.path)).toEqual([
      "/v1/me/memory?scope=session&session_id=s1",
      "/v1/me/memory?scope=all",
    ]);
  });

  it("builds the live socket URL on ws(s) without the token, which goes as a subprotocol", () => {
    const client = new ApiClient({ getToken: () => "a.b-c_d" });
    expect(client.liveUrl("s 1", "https://mem.example/app/")).toBe("wss://mem.example/v1/sessions/s%201/live");
    expect(client.liveProtocols()).toEqual(["unimem.v1", "bearer.a.b-c_d"]);
    expect(new ApiClient().liveUrl("s1", "http://127.0.0.1:8000/")).toBe(
      "ws://127.0.0.1:8000/v1/sessions/s1/live",
    );
    expect(new ApiClient().liveProtocols()).toEqual(["unimem.v1"]);
  });
});

describe("ApiClient typing", () => {
  it("is typed by the server's OpenAPI document (src/api/schema.ts)", async () => {
    const server = new FakeServer();
    const client = new ApiClient({ fetchImpl: server.fetch });
    // `npm run build` type-checks these lines: each must be a compile error.
    // @ts-expect-error: the server has no such route
    await client.http.GET("/v1/no-such-route").catch(() => undefined);
    // @ts-expect-error: a mode is "voice" or "text"
    await client.addEntry("s1", { role: "user", content: "x", mode: "video" }).catch(() => undefined);
    // @ts-expect-error: the history route needs its session id
    await client.http.GET("/v1/sessions/{session_id}/history", {}).catch(() => undefined);
    // Typed calls reach the server's paths, with query parameters encoded.
    await client.http.GET("/v1/sessions/{session_id}/history", {
      params: { path: { session_id: "a b" }, query: { max_messages: 5 } },
    });
    expect(server.requests.at(-1)?.path).toBe("/v1/sessions/a%20b/history?max_messages=5");
  });
});
