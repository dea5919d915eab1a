import { assertEquals } from "../helpers/assert.ts";
import type { SessionNotification, SessionUpdate } from "@agentclientprotocol/sdk";
import { withInMemoryAgent } from "./in_memory_agent.ts";
import { reply, steppedModel } from "./fake_models.ts";
import { text } from "./claude_session_fixture.ts";
import { printing, settings } from "./hook_fixtures.ts";
import {
  asParagraph,
  THREAD_START,
  type ThreadTail,
  threadTailAfter,
  withoutParagraphBreaks,
} from "../../src/acp/session/message_paragraphs.ts";

const notice = (said: string, messageId = "n"): SessionUpdate => ({
  sessionUpdate: "agent_message_chunk",
  messageId,
  content: { type: "text", text: said },
  _meta: { "llama-agent/notice": true },
});
const modelText = (said: string, messageId = "m"): SessionUpdate => ({
  sessionUpdate: "agent_message_chunk",
  messageId,
  content: { type: "text", text: said },
});

function shownText(update: SessionUpdate): string {
  return update.sessionUpdate === "agent_message_chunk" && update.content.type === "text"
    ? update.content.text
    : "";
}

/** Each update as it is sent in order from a fresh thread. */
function sentInOrder(updates: readonly SessionUpdate[]): SessionUpdate[] {
  let tail: ThreadTail = THREAD_START;
  return updates.map((update) => {
    const shown = asParagraph(update, tail);
    tail = threadTailAfter(update, tail);
    return shown;
  });
}

/** The text of each update once sent in order from a fresh thread. */
function sent(updates: readonly SessionUpdate[]): string[] {
  return sentInOrder(updates).map(shownText);
}

/** What a client that joins every agent message chunk shows, after `from`. */
function joinedText(updates: readonly SessionNotification[], from = 0): string {
  return updates.slice(from).map(({ update }) => shownText(update)).join("");
}

Deno.test("a plan shown between a notice and the reply (the model's load progress) does not glue them", () => {
  const plan: SessionUpdate = {
    sessionUpdate: "plan",
    entries: [{ content: "Loading model… 40 %", priority: "high", status: "in_progress" }],
  };
  assertEquals(
    sent([
      notice("UserPromptSubmit says: checked"),
      plan,
      { ...plan, entries: [] },
      modelText("Hi"),
    ]),
    ["UserPromptSubmit says: checked", "", "", "\n\nHi"],
  );
});

Deno.test("a message after another message's text starts a paragraph; the chunks of one message are joined as they are", () => {
  assertEquals(sent([modelText("Do"), modelText("ne."), notice("Stop says: hi")]), [
    "Do",
    "ne.",
    "\n\nStop says: hi",
  ]);
  assertEquals(sent([notice("one", "n1"), notice("two", "n2"), modelText("Hello")]), [
    "one",
    "\n\ntwo",
    "\n\nHello",
  ]);
});

Deno.test("after a tool call, a thought or a user message a message needs no break; session state does not part two messages", () => {
  for (
    const between of [
      { sessionUpdate: "tool_call", toolCallId: "call_1", title: "Run `ls`" },
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hm" } },
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "hi" } },
    ] satisfies SessionUpdate[]
  ) {
    assertEquals(sent([modelText("a"), between, notice("x")]).at(-1), "x", between.sessionUpdate);
  }
  const state: SessionUpdate = {
    sessionUpdate: "current_mode_update",
    currentModeId: "always-ask",
  };
  assertEquals(sent([modelText("a"), state, notice("x")]).at(-1), "\n\nx");
});

Deno.test("withoutParagraphBreaks gives back the messages as they were said", () => {
  const said = [notice("one", "n1"), notice("two", "n2"), modelText("Hel"), modelText("lo")];
  const received = sentInOrder(said).map((update) => ({ sessionId: "s", update }));
  assertEquals(withoutParagraphBreaks(received).map(({ update }) => update), said);
});

Deno.test("a Stop hook's systemMessage after the reply is a paragraph of its own, live and in a load's replay", async () => {
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        Stop: [[null, printing({ systemMessage: "Reminder: run the tests" })]],
      }),
    },
    model: steppedModel([reply("Done.")]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
    assertEquals(joinedText(t.updates), "Done.\n\nStop says: Reminder: run the tests");

    // Closed, so the load brings it back from its transcript.
    await t.agent.request("session/close", { sessionId });
    const before = t.updates.length;
    await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] });
    assertEquals(joinedText(t.updates, before), "Done.\n\nStop says: Reminder: run the tests");
  });
});

Deno.test("a prompt's notices and the reply after them are paragraphs; a turn's first message has no leading break", async () => {
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        UserPromptSubmit: [[null, printing({ systemMessage: "one" })], [
          null,
          printing({ systemMessage: "two" }),
        ]],
      }),
    },
    model: steppedModel([reply("First."), reply("Second.")]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
    const second = t.updates.length;
    await t.agent.request("session/prompt", { sessionId, prompt: text("again") });
    const said = "UserPromptSubmit says: one\n\nUserPromptSubmit says: two";
    assertEquals(joinedText(t.updates.slice(0, second)), `${said}\n\nFirst.`);
    // The previous turn ended in agent text, but the client shows the new prompt in between.
    assertEquals(joinedText(t.updates, second), `${said}\n\nSecond.`);
  });
});
