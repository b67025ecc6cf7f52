// End-to-end tests of the web UI in headless Chromium against a real
// `unimem serve` (started by scripts/frontend-test).
//
//   UNIMEM_E2E_URL=http://127.0.0.1:PORT node e2e/run.mjs
//
// Only the browser's speech recognition is stubbed (headless Chromium has no
// microphone); everything of unimem's is real. Screenshots of the main
// states go to frontend/test-results/.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const BASE = (process.env.UNIMEM_E2E_URL ?? "").replace(/\/$/, "");
if (!BASE) {
  console.error("set UNIMEM_E2E_URL to the address of a running `unimem serve`");
  process.exit(2);
}
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const OUT = process.env.SCREENSHOT_DIR ?? join(dirname(fileURLToPath(import.meta.url)), "..", "test-results");
mkdirSync(OUT, { recursive: true });
const TIMEOUT = 30_000;

// Replaces the Web Speech recognition API with one the test drives:
// window.__speech.say(text) delivers a final transcript to the listening recognizer.
const SPEECH_STUB = () => {
  const state = { current: null, started: 0 };
  class FakeRecognition {
    constructor() {
      this.lang = "";
      this.interimResults = false;
      this.continuous = false;
      this.maxAlternatives = 1;
      this.onresult = null;
      this.onerror = null;
      this.onend = null;
    }
    start() {
      state.current = this;
      state.started += 1;
    }
    stop() {
      if (state.current === this) state.current = null;
      this.onend?.();
    }
    abort() {
      this.stop();
    }
  }
  window.SpeechRecognition = FakeRecognition;
  window.webkitSpeechRecognition = FakeRecognition;
  window.__speech = {
    state,
    say(text) {
      const rec = state.current;
      if (!rec) throw new Error("no recognizer is listening");
      const result = Object.assign([{ transcript: text, confidence: 0.93 }], { isFinal: true });
      rec.onresult?.({ resultIndex: 0, results: [result] });
      rec.stop();
    },
  };
};

const NO_SPEECH = () => {
  delete window.SpeechRecognition;
  delete window.webkitSpeechRecognition;
};

async function api(path, init) {
  const response = await fetch(`${BASE}${path}`, init);
  assert.ok(response.ok, `${init?.method ?? "GET"} ${path} answered ${response.status}`);
  return response.json();
}

async function shot(page, name) {
  await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
}

async function openSession(context, sessionId) {
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  const errors = [];
  page.on("pageerror", (err) => errors.push(err.message));
  page.on("console", (msg) => {
    if (msg.type() === "error" && !/WebSocket|Failed to load resource/.test(msg.text())) {
      errors.push(msg.text());
    }
  });
  page.errors = errors;
  page.notFound = [];
  page.on("response", (response) => {
    if (response.status() === 404) page.notFound.push(response.url());
  });
  await page.goto(`${BASE}/?session=${encodeURIComponent(sessionId)}`);
  await page.getByTestId("live-status").filter({ hasText: "Live" }).waitFor();
  return page;
}

async function sendText(page, text) {
  const box = page.getByLabel("Message", { exact: true });
  await box.fill(text);
  await box.press("Enter");
  await page.locator('[data-testid="message"]:not([aria-busy])', { hasText: text }).waitFor();
}

/** x of the first character minus x of the last one, as laid out on screen. */
function firstMinusLastX(locator) {
  return locator.evaluate((el) => {
    const text = el.firstChild;
    const range = document.createRange();
    range.setStart(text, 0);
    range.setEnd(text, 1);
    const first = range.getBoundingClientRect().left;
    range.setStart(text, text.length - 1);
    range.setEnd(text, text.length);
    return first - range.getBoundingClientRect().left;
  });
}

function messages(page) {
  return page.getByTestId("message");
}

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

const sessionId = `e2e-${Date.now().toString(36)}`;
const ctx = {};

test("typed then spoken messages share one history with mode badges and a switch marker", async () => {
  const page = await openSession(ctx.context, sessionId);
  ctx.page = page;
  await page.getByTestId("history-empty").waitFor();
  // Loading the page asks for nothing that is not there (the icon included).
  assert.deepEqual(page.notFound, []);
  const icon = await fetch(`${BASE}/favicon.ico`);
  assert.equal(icon.status, 200);
  assert.match(icon.headers.get("content-type") ?? "", /^image\//);
  // No LLM on this server: the chat says nothing will answer.
  await page.getByTestId("no-assistant").waitFor();

  const textButton = page.getByRole("button", { name: "Text", exact: true });
  const voiceButton = page.getByRole("button", { name: "Voice", exact: true });
  assert.equal(await textButton.getAttribute("aria-pressed"), "true");

  await page.getByLabel("Language").selectOption("en");
  await sendText(page, "What is metformin used for?");

  await voiceButton.click();
  assert.equal(await voiceButton.getAttribute("aria-pressed"), "true");
  assert.equal(await textButton.getAttribute("aria-pressed"), "false");

  await page.getByRole("button", { name: "Press to talk" }).click();
  await page.waitForFunction(() => window.__speech.state.current !== null);
  await page.evaluate(() => window.__speech.say("and what dose should i take"));
  await page
    .locator('[data-testid="message"][data-mode="voice"]:not([aria-busy])', { hasText: "and what dose should i take" })
    .waitFor();

  const items = page.locator('ol.history > li[data-testid="message"], ol.history > li[data-testid="marker"]');
  const kinds = await items.evaluateAll((els) =>
    els.map((el) => `${el.dataset.testid}:${el.dataset.mode ?? el.dataset.eventType}`),
  );
  assert.deepEqual(kinds, ["message:text", "marker:mode_switch", "message:voice"]);
  const badges = await page.getByTestId("mode-badge").allInnerTexts();
  assert.deepEqual(badges.map((b) => b.trim().split(/\s+/).at(-1)), ["text", "voice"]);

  const stored = await api(`/v1/sessions/${sessionId}/history`);
  assert.deepEqual(stored.map((e) => [e.mode, e.content]), [
    ["text", "What is metformin used for?"],
    ["voice", "and what dose should i take"],
  ]);
  const events = await api(`/v1/sessions/${sessionId}/events?event_type=mode_switch&limit=10`);
  assert.equal(events.length, 1);
  assert.deepEqual([events[0].data.from_mode, events[0].data.to_mode], ["text", "voice"]);
  await shot(page, "01-text-then-voice");
});

test("a refresh shows the same conversation, from the server", async () => {
  const page = ctx.page;
  await page.reload();
  await page.getByTestId("live-status").filter({ hasText: "Live" }).waitFor();
  await messages(page).nth(1).waitFor();
  assert.equal(await messages(page).count(), 2);
  assert.equal(await page.getByTestId("marker").count(), 1);
  assert.ok(page.url().includes(`session=${sessionId}`));
  // The conversation is not kept in the browser: only the session id is.
  const keys = await page.evaluate(() => Object.keys(localStorage));
  assert.deepEqual(keys.sort(), ["unimem.session"]);
  await shot(page, "02-after-refresh");
});

test("a second tab on the same conversation receives new messages live", async () => {
  const first = ctx.page;
  const second = await openSession(ctx.context, sessionId);
  ctx.second = second;
  await messages(second).nth(1).waitFor();
  await second.getByRole("button", { name: "Text", exact: true }).click();
  await sendText(second, "Can I take it with food?");
  // The first tab never reloads: the entry arrives over its live socket.
  await first.locator('[data-testid="message"]', { hasText: "Can I take it with food?" }).waitFor();
  assert.equal(await messages(first).count(), 3);
  await first.locator('[data-testid="marker"][data-event-type="mode_switch"]').nth(1).waitFor();
  await shot(first, "03-first-tab-live");
});

test("a mode switch in one tab moves the other tab's toggle, so no second switch is stored", async () => {
  const first = ctx.page;
  const second = ctx.second;
  const pressed = (page, name) =>
    page.locator(`.mode-switch button[aria-pressed="true"]`, { hasText: name }).waitFor();
  // The second tab switched to Text above: the first tab follows.
  await pressed(first, "Text");
  await first.getByRole("button", { name: "Voice", exact: true }).click();
  await pressed(second, "Voice");
  await second.getByRole("button", { name: "Press to talk" }).waitFor();
  await first.getByRole("button", { name: "Text", exact: true }).click();
  await pressed(second, "Text");
  await sendText(second, "Back to typing");
  const events = await api(`/v1/sessions/${sessionId}/events?event_type=mode_switch&limit=20`);
  assert.deepEqual(
    events.map((e) => `${e.data.from_mode}>${e.data.to_mode}`),
    ["text>voice", "voice>text", "text>voice", "voice>text"],
  );
});

test("an Arabic message renders right to left", async () => {
  const first = ctx.page;
  const second = ctx.second;
  await first.getByLabel("Language").selectOption("en");
  await second.getByLabel("Language").selectOption("ar");
  const arabic = "ما هي الجرعة المناسبة للأطفال؟";
  await sendText(second, arabic);
  for (const page of [second, first]) {
    const content = page.locator('[data-testid="message"]', { hasText: arabic }).getByTestId("message-content");
    await content.waitFor();
    assert.equal(await content.getAttribute("dir"), "rtl");
    assert.equal(await content.evaluate((el) => getComputedStyle(el).direction), "rtl");
    // Laid out right to left: the first letter is drawn right of the last one.
    assert.ok((await firstMinusLastX(content)) > 0, "Arabic text is not laid out right to left");
  }
  await first.locator('[data-testid="marker"][data-event-type="language_switch"]').waitFor();
  // The first tab's language picker followed the switch made in the second.
  await first.waitForFunction(() => document.querySelector("#language")?.value === "ar");

  // Untagged Arabic (language left to detection) still renders right to left.
  await second.getByLabel("Language").selectOption("");
  const untagged = "شكرا جزيلا";
  await sendText(second, untagged);
  const content = second.locator('[data-testid="message"]', { hasText: untagged }).getByTestId("message-content");
  assert.equal(await content.evaluate((el) => getComputedStyle(el).direction), "rtl");
  assert.ok((await firstMinusLastX(content)) > 0, "untagged Arabic is not laid out right to left");
  // ...and an English message is still left to right.
  const english = second.locator('[data-testid="message"]', { hasText: "Can I take it with food?" }).getByTestId("message-content");
  assert.ok((await firstMinusLastX(english)) < 0);
  await shot(first, "04-arabic-rtl");
});

test("a message with PHI is stored redacted and flagged on every tab", async () => {
  const first = ctx.page;
  const second = ctx.second;
  const box = second.getByLabel("Message", { exact: true });
  await box.fill("My SSN is 123-45-6789, call me on 555-123-4567");
  await box.press("Enter");
  for (const page of [second, first]) {
    const flagged = page.locator('[data-testid="message"]', { has: page.getByTestId("phi-badge") });
    await flagged.waitFor();
    const text = await flagged.getByTestId("message-content").innerText();
    assert.ok(!text.includes("123-45-6789") && !text.includes("555-123-4567"), `not redacted: ${text}`);
  }
  const stored = await api(`/v1/sessions/${sessionId}/history`);
  assert.equal(stored.filter((e) => e.phi_detected).length, 1);
  assert.ok(!JSON.stringify(stored).includes("123-45-6789"));
  await shot(first, "05-phi-flag");
});

test("the context inspector shows the messages an LLM would get, with a token count", async () => {
  const page = ctx.page;
  await page.getByLabel("Next question").fill("Is it safe in pregnancy?");
  await page.getByRole("button", { name: "Show context" }).click();
  const inspector = page.getByTestId("llm-context");
  await inspector.waitFor();
  const tokens = Number(await page.getByTestId("token-count").innerText());
  assert.ok(tokens > 0, `token count ${tokens}`);
  const text = await inspector.innerText();
  assert.ok(text.includes("Is it safe in pregnancy?"));
  assert.ok(text.includes("What is metformin used for?"));
  await shot(page, "06-context-inspector");
});

test("a new conversation leaves the old one in the list, named by date and first line", async () => {
  const page = ctx.page;
  const label = page.getByTestId("session-label");
  assert.ok((await label.innerText()).includes("What is metformin used for?"));
  assert.ok(!(await label.innerText()).includes(sessionId));
  await page.getByRole("button", { name: "New conversation" }).click();
  await page.getByTestId("history-empty").waitFor();
  await label.filter({ hasText: "No messages yet" }).waitFor();
  const old = page.locator(`[data-testid="conversation"][data-session-id="${sessionId}"]`);
  await old.filter({ hasText: "What is metformin used for?" }).waitFor();
  const modes = await old.getByTestId("conversation-mode").allInnerTexts();
  assert.deepEqual(modes.map((m) => m.trim()), ["text", "voice"]);
  const languages = await old.getByTestId("conversation-language").allInnerTexts();
  assert.ok(languages.includes("English") && languages.includes("Arabic"), languages.join(","));
  await shot(page, "07-conversation-list");
  await old.click();
  await page.locator('[data-testid="message"]', { hasText: "What is metformin used for?" }).waitFor();
  assert.ok(page.url().includes(`session=${sessionId}`));
  await page.getByTestId("live-status").filter({ hasText: "Live" }).waitFor();
});

test("a search over past conversations opens the conversation at the turn found", async () => {
  const page = ctx.page;
  await page.getByRole("button", { name: "New conversation" }).click();
  await page.getByTestId("history-empty").waitFor();
  const box = page.getByRole("searchbox", { name: "Search past conversations" });
  await box.fill("metformin");
  await box.press("Enter");
  const hit = page.locator(`[data-testid="search-hit"][data-session-id="${sessionId}"]`, {
    hasText: "What is metformin used for?",
  });
  await hit.first().waitFor();
  const first = hit.first();
  assert.equal((await first.getByTestId("search-hit-mode").innerText()).trim(), "text");
  assert.equal(await first.getByTestId("search-hit-language").innerText(), "English");
  assert.ok((await first.getByTestId("search-hit-date").getAttribute("datetime"))?.startsWith("20"));
  await shot(page, "07-search");
  await first.click();
  const turn = page.locator('[data-testid="message"][data-focused="true"]');
  await turn.filter({ hasText: "What is metformin used for?" }).waitFor();
  assert.equal(await turn.count(), 1);
  assert.ok(page.url().includes(`session=${sessionId}`));
  const inView = await turn.evaluate((el) => {
    const box = el.getBoundingClientRect();
    return box.bottom > 0 && box.top < window.innerHeight;
  });
  assert.ok(inView, "the turn found is scrolled into view");
  // Nothing of another conversation is found for words never said.
  await box.fill("zzyzx");
  await box.press("Enter");
  await page.getByTestId("search-empty").waitFor();
  await page.getByTestId("live-status").filter({ hasText: "Live" }).waitFor();
});

test("settings refuse a retention out of range and say so", async () => {
  const page = ctx.page;
  const field = page.getByLabel("Retention in days");
  for (const value of ["0", "100000"]) {
    await field.fill(value);
    await page.getByRole("alert").filter({ hasText: "Keep for 1 to 36500 days" }).waitFor();
    assert.equal(await field.inputValue(), value);
  }
  assert.equal((await api("/v1/me/settings")).retention_days, 30);
  await field.fill("45");
  await page.getByTestId("settings-status").filter({ hasText: "Settings saved." }).waitFor();
  assert.equal((await api("/v1/me/settings")).retention_days, 45);
  // "days" and the status are laid out apart, not run together.
  const text = await page.locator("fieldset", { hasText: "Keep for" }).innerText();
  assert.match(text, /days\s*\n\s*Settings saved\./);
});

test("What unimem remembers: a fact links to its turn and is confirmed, corrected and deleted", async () => {
  const session = `${sessionId}-facts`;
  const page = await openSession(ctx.context, session);
  const said = "I'm allergic to sulfa, it gives me hives.";
  await sendText(page, said);
  const [entry] = await api(`/v1/sessions/${session}/history`);
  await api(`/v1/sessions/${session}/entries/${entry.id}/pin`, { method: "POST" });
  await page.reload();
  const panel = page.getByRole("region", { name: "What unimem remembers" });
  const fact = panel.getByTestId("fact").filter({ hasText: said });
  await fact.waitFor();
  await fact.getByTestId("fact-confirm").click();
  await fact.getByTestId("fact-status").filter({ hasText: "confirmed" }).waitFor();
  // the pinned fact (the turn's own facts, found in it, have a key)
  const mine = async () =>
    (await api("/v1/me/facts")).filter((f) => f.session_id === session && f.key === null);
  assert.deepEqual((await mine()).map((f) => f.status), ["confirmed"]);

  await fact.getByTestId("fact-correct").click();
  await panel.getByTestId("fact-value").fill("Allergic to sulfa drugs (swelling)");
  await panel.getByTestId("fact-save").click();
  const corrected = panel.getByTestId("fact").filter({ hasText: "Allergic to sulfa drugs (swelling)" });
  await corrected.getByTestId("fact-status").filter({ hasText: "corrected" }).waitFor();
  const history = (await api("/v1/me/facts?include_history=true")).filter(
    (f) => f.session_id === session && f.key === null,
  );
  assert.deepEqual(
    history.map((f) => [f.text, f.valid_to === null]),
    [[said, false], ["Allergic to sulfa drugs (swelling)", true]],
  );
  await shot(page, "08a-facts-panel");

  // From another conversation, the fact's link opens the turn it came from.
  await page.goto(`${BASE}/?session=${encodeURIComponent(`${session}-other`)}`);
  await page.getByTestId("history-empty").waitFor();
  await corrected.getByTestId("fact-source").click();
  await page.locator('[data-testid="message"].focused', { hasText: said }).waitFor();
  assert.equal(await page.locator(`[data-entry-id="${entry.id}"]`).getAttribute("class").then((c) => c.includes("focused")), true);

  await corrected.getByTestId("fact-delete").click();
  await corrected.waitFor({ state: "detached" });
  assert.deepEqual(await mine(), []);
  // the earlier value is history, kept until deleted too; so are the turn's own facts
  const left = (await api("/v1/me/facts?include_history=true")).filter((f) => f.session_id === session);
  assert.deepEqual(left.filter((f) => f.key === null).map((f) => f.text), [said]);
  for (const fact of left) await api(`/v1/me/facts/${fact.id}`, { method: "DELETE" });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("delete all empties the history and the server confirms it", async () => {
  const page = ctx.page;
  await page.getByLabel("Everything").check();
  await page.getByRole("button", { name: "Delete…" }).click();
  const dialog = page.getByRole("alertdialog");
  await dialog.waitFor();
  assert.match(await dialog.innerText(), /Kept: your settings, and the log of deletions and settings changes \(ids and counts only/);
  await shot(page, "07-delete-confirm");
  await dialog.getByRole("button", { name: "Yes, delete" }).click();
  const receipt = page.getByTestId("deletion-receipt");
  await receipt.waitFor();
  assert.match(await receipt.innerText(), /^Deleted all of your memory: \d+ messages( in \d+ conversations)?\.$/);
  // Asking to delete again clears the last result.
  await page.getByRole("button", { name: "Delete…" }).click();
  await page.getByRole("alertdialog").waitFor();
  assert.equal(await receipt.count(), 0);
  await page.getByRole("button", { name: "Cancel" }).click();
  await page.getByTestId("history-empty").waitFor();
  // The other open tab hears of it over the live socket (memory_deleted) and clears too.
  await ctx.second.getByTestId("history-empty").waitFor();
  assert.deepEqual(await api(`/v1/sessions/${sessionId}/history`), []);
  assert.deepEqual(await api(`/v1/sessions/${sessionId}/events?limit=100`), []);
  await page.reload();
  await page.getByTestId("history-empty").waitFor();
  await shot(page, "08-after-delete");
});

test("without speech recognition the page says so and typing still works", async () => {
  const context = await ctx.browser.newContext({ viewport: { width: 390, height: 844 } });
  await context.addInitScript(NO_SPEECH);
  const page = await openSession(context, `${sessionId}-nospeech`);
  await page.getByRole("button", { name: "Voice", exact: true }).click();
  await page.getByTestId("voice-unsupported").waitFor();
  await shot(page, "09-no-speech-mobile");
  await page.getByRole("button", { name: "Text", exact: true }).click();
  for (let i = 1; i <= 8; i += 1) await sendText(page, `typing still works, message ${i}`);
  // On a phone the Send button is on screen without scrolling, however long the chat.
  const send = await page.getByRole("button", { name: "Send" }).boundingBox();
  assert.ok(send && send.y >= 0 && send.y + send.height <= 844, `Send at ${JSON.stringify(send)}`);
  assert.equal(await page.evaluate(() => window.scrollY), 0);
  await shot(page, "09b-mobile-chat");
  assert.deepEqual(page.errors, []);
  await context.close();
});

const AUTH_URL = (process.env.UNIMEM_E2E_AUTH_URL ?? "").replace(/\/$/, "");
const TOKEN = process.env.UNIMEM_E2E_TOKEN ?? "";

test("with auth on, the page asks for a token and then works with it", async () => {
  assert.ok(AUTH_URL && TOKEN, "set UNIMEM_E2E_AUTH_URL and UNIMEM_E2E_TOKEN (scripts/frontend-test does)");
  const context = await ctx.browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  const authSession = `${sessionId}-auth`;
  const sockets = [];
  page.on("websocket", (ws) => sockets.push(ws.url()));
  await page.goto(`${AUTH_URL}/?session=${authSession}`);
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  await shot(page, "10-sign-in");
  // A wrong token is refused with a message; "Sign out" never shows beside "Not signed in".
  await page.getByLabel("Access token").fill("not.a.token");
  await page.getByRole("button", { name: "Use token" }).click();
  await page.getByTestId("token-error").waitFor();
  assert.match(await page.getByTestId("token-error").innerText(), /did not accept this token/);
  assert.equal(await page.getByRole("button", { name: "Sign out" }).count(), 0);
  await shot(page, "10b-token-refused");
  await page.getByLabel("Access token").fill(TOKEN);
  await page.getByRole("button", { name: "Use token" }).click();
  await page.getByRole("heading", { name: "Sign in" }).waitFor({ state: "detached" });
  await page.getByTestId("live-status").filter({ hasText: "Live" }).waitFor();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
  // Live with the token, which never went into a socket's URL (it rides in Sec-WebSocket-Protocol).
  assert.ok(sockets.length > 0);
  for (const url of sockets) assert.ok(!url.includes("token") && !url.includes(TOKEN.slice(-16)), url);
  await sendText(page, "signed in and typing");

  const history = `${AUTH_URL}/v1/sessions/${authSession}/history`;
  assert.equal((await fetch(history)).status, 401);
  const stored = await (await fetch(history, { headers: { Authorization: `Bearer ${TOKEN}` } })).json();
  assert.deepEqual(stored.map((e) => [e.user_id, e.content]), [["e2e-alice", "signed in and typing"]]);

  // A refresh keeps the token (this browser only) and the conversation.
  await page.reload();
  await page.locator('[data-testid="message"]', { hasText: "signed in and typing" }).waitFor();
  await context.close();
});

// ------------------------------------------------------------ the assistant
//
// A fake OpenAI-compatible endpoint (real HTTP on loopback, streaming SSE
// chunks like the real API) and a second `unimem serve` pointed at it.

const REPLIES = [
  [/migraine/i, ["Migraines are", " headaches that", " come back.", " Rest helps."]],
  [/.*/, ["Rest,", " water", " and a dark room", " help."]],
];

function startFakeLlm() {
  const requests = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", async () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(raw);
      requests.push(body);
      const last = body.messages.at(-1)?.content ?? "";
      const pieces = REPLIES.find(([pattern]) => pattern.test(last))[1];
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      const chunk = (delta) =>
        `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
      res.write(chunk({ role: "assistant" }));
      for (const piece of pieces) {
        // Slow enough for the page to show the reply growing.
        await new Promise((resolve) => setTimeout(resolve, 250));
        res.write(chunk({ content: piece }));
      }
      res.end("data: [DONE]\n\n");
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const url = `http://127.0.0.1:${server.address().port}/v1`;
      resolve({ url, requests, close: () => new Promise((done) => server.close(done)) });
    });
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function startServeWithLlm(llmUrl) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "unimem-e2e-llm-"));
  const env = { ...process.env, UNIMEM_DATA_DIR: dataDir, UNIMEM_LLM_BASE_URL: llmUrl, UNIMEM_LLM_MODEL: "fake-chat" };
  for (const name of ["UNIMEM_JWT_SECRET", "UNIMEM_DATABASE_URL", "UNIMEM_REDIS_URL", "UNIMEM_WEB_DIR"]) delete env[name];
  const child = spawn(process.env.UNIMEM_BIN ?? "unimem", ["serve", "--host", "127.0.0.1", "--port", String(port), "--log-level", "warning"], {
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr.on("data", (chunk) => (log += chunk));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  for (let i = 0; i < 300; i += 1) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${url}/readyz`)).ok) return { url, stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await stop();
  throw new Error(`unimem serve with an LLM did not start:\n${log.slice(-2000)}`);
}

// Replaces speech synthesis with one the test drives: speak() reports having
// read up to character 10, then waits until cancelled (or __synth.finish()).
const SYNTH_STUB = () => {
  const synth = {
    current: null,
    spoken: [],
    speaking: false,
    pending: false,
    paused: false,
    speak(u) {
      synth.current = u;
      synth.spoken.push(u.text);
      setTimeout(() => u.onboundary?.({ charIndex: 10 }), 0);
    },
    cancel() {
      const u = synth.current;
      synth.current = null;
      u?.onerror?.({ error: "interrupted" });
    },
    finish() {
      const u = synth.current;
      synth.current = null;
      u?.onend?.({});
    },
    getVoices: () => [],
    pause() {},
    resume() {},
    addEventListener() {},
    removeEventListener() {},
  };
  Object.defineProperty(window, "speechSynthesis", { value: synth, configurable: true });
  window.__synth = synth;
};

test("with an LLM configured, a typed turn gets a streamed reply that is stored", async () => {
  const context = await ctx.browser.newContext({ viewport: { width: 1280, height: 860 }, locale: "en-US" });
  await context.addInitScript(SPEECH_STUB);
  await context.addInitScript(SYNTH_STUB);
  ctx.llmContext = context;
  const session = `${sessionId}-llm`;
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  page.errors = [];
  page.on("pageerror", (err) => page.errors.push(err.message));
  ctx.llmPage = page;
  await page.goto(`${ctx.llm.url}/?session=${session}`);
  await page.getByTestId("live-status").filter({ hasText: "Live" }).waitFor();
  await page.getByTestId("assistant-on").waitFor();

  const box = page.getByLabel("Message", { exact: true });
  await box.fill("What helps a headache?");
  await box.press("Enter");
  // Seen while it streams: part of the reply, not yet all of it.
  const streaming = page.getByTestId("streaming-reply");
  await streaming.filter({ hasText: "water" }).waitFor();
  assert.ok(!(await streaming.textContent()).includes("dark room help."), "the reply streams in pieces");
  await shot(page, "11-assistant-streaming");
  await page.locator('[data-testid="message"]', { hasText: "Rest, water and a dark room help." }).waitFor();
  await streaming.waitFor({ state: "detached" });
  await shot(page, "12-assistant-replied");

  const history = await (await fetch(`${ctx.llm.url}/v1/sessions/${session}/history`)).json();
  assert.deepEqual(history.map((e) => [e.role, e.content]), [
    ["user", "What helps a headache?"],
    ["assistant", "Rest, water and a dark room help."],
  ]);
  // the last reply asked for (fact extraction asks too, without streaming)
  const asked = ctx.fakeLlm.requests.filter((r) => r.stream).at(-1);
  assert.equal(asked.stream, true);
  assert.equal(asked.model, "fake-chat");
  assert.equal(asked.messages.at(-1).content, "What helps a headache?");
  assert.deepEqual(page.errors, []);
});

test("in voice mode the reply is read aloud, and talking over it keeps only what was heard", async () => {
  const page = ctx.llmPage;
  const session = `${sessionId}-llm`;
  await page.getByRole("button", { name: "Voice", exact: true }).click();
  await page.getByRole("button", { name: "Press to talk" }).click();
  await page.evaluate(() => window.__speech.say("Tell me about migraines"));
  const full = "Migraines are headaches that come back. Rest helps.";
  await page.locator('[data-testid="message"]', { hasText: full }).waitFor();
  await page.waitForFunction((text) => window.__synth.current?.text === text, full);
  await shot(page, "13-assistant-speaking");
  // Barge-in: the user talks over the answer.
  await page.getByRole("button", { name: "Press to talk" }).click();
  const url = `${ctx.llm.url}/v1/sessions/${session}/history`;
  let assistant;
  for (let i = 0; i < 100; i += 1) {
    const history = await (await fetch(url)).json();
    assistant = history.filter((e) => e.role === "assistant").at(-1);
    if (assistant?.metadata?.interrupted) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(assistant.metadata.interrupted, true);
  assert.equal(assistant.content, "Migraines are"); // heard up to character 10, to the word's end
  assert.equal(assistant.mode, "voice");
  await page.locator('[data-testid="message"]', { hasText: "Migraines are" }).waitFor();
  await shot(page, "14-assistant-interrupted");
  assert.deepEqual(page.errors, []);
  await ctx.llmContext.close();
});

async function main() {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
  });
  ctx.browser = browser;
  ctx.fakeLlm = await startFakeLlm();
  ctx.llm = await startServeWithLlm(ctx.fakeLlm.url);
  ctx.context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: "en-US" });
  await ctx.context.addInitScript(SPEECH_STUB);
  let passed = 0;
  let failed = 0;
  try {
    for (const [index, { name, fn }] of tests.entries()) {
      const start = Date.now();
      try {
        await fn();
        passed += 1;
        console.log(`ok   ${name} (${Date.now() - start} ms)`);
      } catch (err) {
        failed += 1;
        console.log(`FAIL ${name}\n     ${String(err?.stack ?? err).split("\n").slice(0, 6).join("\n     ")}`);
        for (const [tab, page] of [["first", ctx.page], ["second", ctx.second]]) {
          if (page && !page.isClosed()) await shot(page, `failed-${index + 1}-${tab}`).catch(() => {});
        }
        // Later tests build on the state earlier ones left: stop here.
        break;
      }
    }
    // Uncaught exceptions or console errors in the page fail the run too.
    for (const page of [ctx.page, ctx.second, ctx.llmPage]) {
      if (page?.errors?.length) {
        failed += 1;
        console.log(`FAIL errors in the page: ${page.errors.join(" | ")}`);
      }
    }
  } finally {
    await browser.close();
    await ctx.llm.stop();
    await ctx.fakeLlm.close();
  }
  const notRun = tests.length - passed - Math.min(failed, 1);
  console.log(`e2e: ${passed} passed, ${failed} failed${notRun > 0 ? ` (${notRun} not run)` : ""}`);
  console.log(`screenshots: ${OUT}`);
  process.exit(failed ? 1 : 0);
}

await main();
