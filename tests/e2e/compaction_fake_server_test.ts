/**
 * Compaction over real stdio: the real agent with `--endpoint` at a loopback fake server that
 * plays llama-server with a 4096-token context (`GET /props` says so, and a longer prompt is
 * refused as llama-server refuses it). The fake answers by what it is asked: a summary request
 * (no tools) with a numbered summary, a prompt with a read of a large numeric file, the file's
 * content with a short answer. What the model read is what the fake received.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import type { AcpHarness, JsonObject } from "../helpers/acp_harness.ts";
import {
  type FakeReply,
  type FakeServer,
  llamaServerOverflow,
  llamaServerProps,
  promptTokensOf,
  startFakeServer,
} from "../helpers/openai_fake_server.ts";
import { SUMMARY_SYSTEM_PROMPT } from "../../src/acp/compaction/conversation_summary.ts";
import { SUMMARY_HEADING } from "../../src/acp/turn/system_prompt.ts";
import { textPrompt as text } from "./e2e_project.ts";
import {
  group,
  hook,
  type HookProject,
  noticesOf,
  readTranscript,
  runsOf,
  withHookProject,
} from "./hook_project.ts";

const CONTEXT = 4096;

/** 300 lines of numbers, about 3,900 tokens: one read alone would take the whole context. */
const NUMBERS = Array.from(
  { length: 300 },
  (_, i) => `${i * 7919} ${(i * 104729) % 99991} ${(i * 15485863) % 1000003}`,
).join("\n");

/** A prompt the fake refuses as too long whatever comes before it (see `refusesMarked`). */
const OVERSIZED = "OVERSIZED";

interface ChatMessage {
  readonly role: string;
  readonly content?: string | null;
}

function messagesOf(body: Record<string, unknown>): ChatMessage[] {
  return Array.isArray(body.messages) ? body.messages : [];
}

function chunk(delta: object, finish: string | null = null): object {
  return {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 1764547200,
    model: "served-model",
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

function streamOf(...chunks: object[]): FakeReply {
  return { kind: "stream", chunks };
}

/**
 * A model that reads by what it is asked: a summary request (no tools) gets `SUMMARY-<n>`; a
 * user message gets a sentence and one call of `toolName` on `path`; the tool's result gets a
 * short answer. `refuse` may refuse a request first (an HTTP error reply).
 */
function readingModel(
  toolName: string,
  path: string,
  refuse: (body: Record<string, unknown>) => FakeReply | undefined = () => undefined,
): (body: Record<string, unknown>) => FakeReply {
  let summaries = 0;
  let calls = 0;
  return (body) => {
    const refusal = refuse(body);
    if (refusal !== undefined) return refusal;
    if (body.tools === undefined) {
      summaries++;
      return streamOf(
        chunk({ role: "assistant", content: `SUMMARY-${summaries}: the user had ` }),
        chunk({ content: `${path} read again and again; it holds numbers.` }),
        chunk({}, "stop"),
      );
    }
    const last = messagesOf(body).at(-1);
    if (last?.role === "user" && !String(last.content).startsWith("say hi")) {
      calls++;
      return streamOf(
        chunk({ role: "assistant", content: `Reading ${path} (${calls}).` }),
        chunk({
          tool_calls: [{
            index: 0,
            id: `call_${calls}`,
            type: "function",
            function: { name: toolName, arguments: JSON.stringify({ file_path: path }) },
          }],
        }),
        chunk({}, "tool_calls"),
      );
    }
    const answer = last?.role === "user"
      ? "Hi."
      : `The file holds ${NUMBERS.split("\n").length} lines.`;
    return streamOf(chunk({ role: "assistant", content: answer }), chunk({}, "stop"));
  };
}

/** llama-server's refusal of any request whose last user message is marked `OVERSIZED`. */
function refusesMarked(body: Record<string, unknown>): FakeReply | undefined {
  const lastUser = messagesOf(body).findLast((message) => message.role === "user");
  if (!String(lastUser?.content ?? "").includes(OVERSIZED)) return undefined;
  return {
    kind: "error",
    status: 400,
    body: llamaServerOverflow(promptTokensOf(body) + CONTEXT, CONTEXT),
  };
}

/** llama-server at 4096 tokens, answering as `readingModel` does. */
function contextServer(
  respond: (body: Record<string, unknown>) => FakeReply,
  contextSize = CONTEXT,
): FakeServer {
  return startFakeServer({
    models: [{ id: "served-model" }],
    routes: { "GET /props": llamaServerProps(contextSize) },
    contextSize,
    usage: {},
    respond,
  });
}

async function withServer(
  respond: (p: HookProject) => (body: Record<string, unknown>) => FakeReply,
  fn: (p: HookProject, server: FakeServer) => Promise<void>,
): Promise<void> {
  await withHookProject(async (p) => {
    await Deno.writeTextFile(`${p.cwd}/data.txt`, NUMBERS);
    const server = contextServer(respond(p));
    try {
      await fn(p, server);
    } finally {
      await server.close();
    }
  });
}

function startOn(
  p: HookProject,
  server: FakeServer,
  extra: string[] = [],
  clientCapabilities: unknown = {},
): Promise<AcpHarness> {
  return p.startAgent("served-model", ["--endpoint", server.baseUrl, ...extra], clientCapabilities);
}

async function prompt(agent: AcpHarness, sessionId: string, words: string): Promise<string> {
  const result = await agent.call("session/prompt", { sessionId, prompt: text(words) });
  return String((result as JsonObject).stopReason);
}

function isSummaryRequest(body: Record<string, unknown>): boolean {
  return messagesOf(body)[0]?.content === SUMMARY_SYSTEM_PROMPT;
}

function systemOf(body: Record<string, unknown>): string {
  return String(messagesOf(body)[0]?.content ?? "");
}

function usageUpdates(agent: AcpHarness, sessionId: string): JsonObject[] {
  return agent.sessionUpdates(sessionId).filter((u) => u.sessionUpdate === "usage_update");
}

/** Every request the fake answered fitted its context: none was refused for its size. */
function assertNoneRefused(server: FakeServer): void {
  for (const [i, body] of server.requests.entries()) {
    assert(promptTokensOf(body) <= CONTEXT, `request ${i + 1} took ${promptTokensOf(body)} tokens`);
  }
}

Deno.test("--endpoint at 4096 tokens: twelve turns that each read a large numeric file all end end_turn, and the model reads the summary afterwards", async () => {
  await withServer((p) => readingModel("fs_read", `${p.cwd}/data.txt`), async (p, server) => {
    const agent = await startOn(p, server);
    const sessionId = await p.newSession(agent);
    const stops: string[] = [];
    for (let turn = 1; turn <= 12; turn++) {
      stops.push(await prompt(agent, sessionId, `Read data.txt and count its lines (${turn}).`));
    }
    assertEquals(stops, Array(12).fill("end_turn"));
    assertEquals(
      agent.toolCallUpdates(sessionId).filter((u) => u.status === "completed").length,
      12,
    );
    assertNoneRefused(server);

    const summaries = server.requests.filter(isSummaryRequest);
    assert(summaries.length >= 2, `compacted more than once: ${summaries.length}`);
    for (const body of summaries) assertEquals(body.tools, undefined, "no tools to summarise");
    const lastSummary = summaries.length;
    const last = server.requests.at(-1)!;
    assertStringIncludes(systemOf(last), SUMMARY_HEADING);
    assertStringIncludes(systemOf(last), `SUMMARY-${lastSummary}:`);
    // The next summary is made from the one before.
    assertStringIncludes(JSON.stringify(summaries.at(-1)!.messages), `SUMMARY-${lastSummary - 1}:`);

    const notices = noticesOf(agent, sessionId);
    assertEquals(
      notices.filter((n) => n.includes("compacted into a summary")).length,
      lastSummary,
      notices.join("\n"),
    );
    const usage = usageUpdates(agent, sessionId);
    assert(usage.length >= 24, `a usage_update after each model call: ${usage.length}`);
    for (const update of usage) {
      assertEquals(update.size, CONTEXT);
      assert(Number(update.used) <= CONTEXT, JSON.stringify(update));
    }
    const records = await readTranscript(p.home, sessionId);
    const compactions = records.filter((r) => r.type === "conversation");
    assert(compactions.some((r) => r.reason === "compact_auto"), "recorded in the transcript");
    await agent.close();
  });
});

Deno.test("--endpoint: /compact asks for a summary without tools, says so in a notice, and the next turn reads it", async () => {
  await withServer((p) => readingModel("fs_read", `${p.cwd}/data.txt`), async (p, server) => {
    const agent = await startOn(p, server);
    const sessionId = await p.newSession(agent);
    assertEquals(await prompt(agent, sessionId, "/compact"), "end_turn");
    assertEquals(server.requests.length, 0, "an empty session asks no model");
    assertEquals(noticesOf(agent, sessionId), ["There is nothing to compact yet"]);

    assertEquals(await prompt(agent, sessionId, "Read data.txt."), "end_turn");
    const before = server.requests.length;
    assertEquals(await prompt(agent, sessionId, "/compact keep the line count"), "end_turn");
    const asked = server.requests.slice(before);
    assertEquals(asked.length, 1);
    assert(isSummaryRequest(asked[0]!));
    assertEquals(asked[0]!.tools, undefined);
    const instruction = String(messagesOf(asked[0]!).at(-1)?.content);
    assertStringIncludes(instruction, "User: Read data.txt.");
    assertStringIncludes(instruction, "Focus on: keep the line count");
    const notice = noticesOf(agent, sessionId).at(-1)!;
    assertStringIncludes(notice, "The conversation was compacted into a summary");
    assert(
      !agent.sessionUpdates(sessionId).some((u) => u.sessionUpdate === "compaction_update"),
      "a client that did not ask for compaction updates gets none",
    );

    assertEquals(await prompt(agent, sessionId, "say hi"), "end_turn");
    const next = server.requests.at(-1)!;
    assertStringIncludes(systemOf(next), `${SUMMARY_HEADING}SUMMARY-1:`);
    // A manual compaction summarises everything: the model reads the summary and the new prompt.
    assertEquals(messagesOf(next).map((m) => m.role), ["system", "user"]);
    await agent.close();
  });
});

Deno.test("--endpoint: a client that takes compaction updates sees /compact go in_progress then completed with the summary, and no notice", async () => {
  await withServer((p) => readingModel("fs_read", `${p.cwd}/data.txt`), async (p, server) => {
    const agent = await startOn(p, server, [], { session: { compaction: {} } });
    const sessionId = await p.newSession(agent);
    assertEquals(await prompt(agent, sessionId, "Read data.txt."), "end_turn");
    assertEquals(await prompt(agent, sessionId, "/compact"), "end_turn");
    const updates = agent.sessionUpdates(sessionId)
      .filter((u) => u.sessionUpdate === "compaction_update");
    assertEquals(updates.map((u) => u.status), ["in_progress", "completed"]);
    assertEquals(updates[0]!.compactionId, updates[1]!.compactionId);
    assertEquals(updates[1]!.summary, [{
      type: "text",
      text: `SUMMARY-1: the user had ${p.cwd}/data.txt read again and again; it holds numbers.`,
    }]);
    assertEquals(noticesOf(agent, sessionId), []);
    await agent.close();
  });
});

Deno.test("claude profile on an endpoint: PreCompact and PostCompact fire on /compact and on an automatic compaction with Claude Code's payloads", async () => {
  await withHookProject(async (p) => {
    const dir = await p.sessionDir("work", {
      settings: {
        hooks: {
          PreCompact: [group(undefined, hook("pre"))],
          PostCompact: [group("auto", hook("post_auto")), group("manual", hook("post_manual"))],
        },
      },
      replies: { pre: { out: "Keep every path." } },
      files: { "data.txt": NUMBERS },
    });
    const server = contextServer(readingModel("Read", `${dir}/data.txt`));
    try {
      const agent = await startOn(p, server, ["--compat", "claude"]);
      const sessionId = await p.newSessionIn(agent, dir);
      assertEquals(await prompt(agent, sessionId, "Read data.txt."), "end_turn");
      assertEquals(await prompt(agent, sessionId, "/compact the numbers matter"), "end_turn");
      const manual = (await runsOf(dir, "pre")).map((run) => run.payload);
      assertEquals(manual.length, 1);
      assertEquals(manual[0]!.hook_event_name, "PreCompact");
      assertEquals(manual[0]!.trigger, "manual");
      assertEquals(manual[0]!.custom_instructions, "the numbers matter");
      assertEquals(manual[0]!.session_id, sessionId);
      const summary = server.requests.findLast(isSummaryRequest)!;
      // What PreCompact printed follows the user's own words.
      assertStringIncludes(
        String(messagesOf(summary).at(-1)?.content),
        "Focus on: the numbers matter\n\nKeep every path.",
      );
      const [postManual] = (await runsOf(dir, "post_manual")).map((run) => run.payload);
      assertEquals(postManual?.hook_event_name, "PostCompact");
      assertEquals(postManual?.trigger, "manual");
      assertEquals(
        postManual?.compact_summary,
        `SUMMARY-1: the user had ${dir}/data.txt read again and again; it holds numbers.`,
      );

      for (let turn = 1; (await runsOf(dir, "post_auto")).length === 0; turn++) {
        assert(turn <= 8, "an automatic compaction within eight turns");
        assertEquals(await prompt(agent, sessionId, `Read data.txt (${turn}).`), "end_turn");
      }
      const auto = (await runsOf(dir, "pre")).map((run) => run.payload).slice(1);
      assertEquals(auto.map((payload) => [payload.trigger, payload.custom_instructions]), [
        ["auto", ""],
      ]);
      const [postAuto] = (await runsOf(dir, "post_auto")).map((run) => run.payload);
      assertEquals(postAuto?.trigger, "auto");
      assertEquals(
        postAuto?.compact_summary,
        `SUMMARY-2: the user had ${dir}/data.txt read again and again; it holds numbers.`,
      );
      assertEquals((await runsOf(dir, "post_manual")).length, 1, "matched on the trigger");
      assertNoneRefused(server);
      await agent.close();
    } finally {
      await server.close();
    }
  });
});

Deno.test("--endpoint: session/load after a compaction continues from the same state", async () => {
  await withServer((p) => readingModel("fs_read", `${p.cwd}/data.txt`), async (p, server) => {
    const first = await startOn(p, server);
    const sessionId = await p.newSession(first);
    for (let turn = 1; turn <= 5; turn++) {
      assertEquals(await prompt(first, sessionId, `Read data.txt (${turn}).`), "end_turn");
    }
    assert(server.requests.some(isSummaryRequest), "compacted before the load");
    assertEquals(await prompt(first, sessionId, "say hi once"), "end_turn");
    const live = messagesOf(server.requests.at(-1)!);
    await first.close();

    const asked = server.requests.length;
    const second = await startOn(p, server);
    await second.call("session/load", { sessionId, cwd: p.cwd, mcpServers: [] });
    const replayed = second.sessionUpdates(sessionId)
      .filter((u) => u.sessionUpdate === "user_message_chunk")
      .map((u) => String((u.content as JsonObject).text));
    assertEquals(replayed.length, 6, "the editor is shown the whole history");
    assertEquals(await prompt(second, sessionId, "say hi again"), "end_turn");
    assertEquals(server.requests.length, asked + 1, "no compaction after the load");
    const loaded = messagesOf(server.requests.at(-1)!);
    // The same system prompt (with its summary), the same turns, then the last answer and the
    // new prompt.
    assertStringIncludes(String(live[0]?.content), SUMMARY_HEADING);
    assertEquals(loaded.slice(0, live.length), live);
    assertEquals(loaded.slice(live.length), [
      { role: "assistant", content: "Hi." },
      { role: "user", content: "say hi again" },
    ]);
    await second.close();
  });
});

Deno.test("--endpoint: a server that refuses even the compacted request ends the turn saying so, and the next prompt is answered", async () => {
  await withServer(
    (p) => readingModel("fs_read", `${p.cwd}/data.txt`, refusesMarked),
    async (p, server) => {
      const agent = await startOn(p, server);
      const sessionId = await p.newSession(agent);
      for (let turn = 1; turn <= 2; turn++) {
        assertEquals(await prompt(agent, sessionId, `Read data.txt (${turn}).`), "end_turn");
      }
      const asked = server.requests.length;
      const notices = noticesOf(agent, sessionId).length;
      assertEquals(await prompt(agent, sessionId, `Read ${OVERSIZED} data.`), "max_tokens");
      const tries = server.requests.slice(asked);
      // Refused, compacted (a summary), tried again, refused again: then the turn ends.
      assertEquals(tries.map((body) => isSummaryRequest(body) ? "summary" : "turn"), [
        "turn",
        "summary",
        "turn",
      ]);
      const said = noticesOf(agent, sessionId).slice(notices);
      const last = said.at(-1) ?? "";
      assertStringIncludes(last, "the request exceeds the available context size");
      assertStringIncludes(last, "Your prompt was not sent to the model and is not kept");
      assert(!last.includes(".."), `one full stop between the server's words and ours: ${last}`);

      // Refused again at once: all that is older is in the summary already, so there is nothing
      // to compact, no "compaction" that changes nothing, and no second try of the same request.
      const again = server.requests.length;
      const before = noticesOf(agent, sessionId).length;
      assertEquals(await prompt(agent, sessionId, `Read ${OVERSIZED} data again.`), "max_tokens");
      assertEquals(server.requests.length - again, 1, "tried once");
      const saidAgain = noticesOf(agent, sessionId).slice(before);
      assertEquals(saidAgain.length, 1, saidAgain.join("\n"));
      assertStringIncludes(saidAgain[0]!, "the request exceeds the available context size");

      assertEquals(await prompt(agent, sessionId, "say hi"), "end_turn");
      const next = JSON.stringify(server.requests.at(-1)!.messages);
      assert(!next.includes(OVERSIZED), "the refused prompt was taken back");
      assertStringIncludes(next, "SUMMARY-1:");
      assertEquals(
        (await readTranscript(p.home, sessionId)).filter((r) => r.reason === "prompt_withdrawn")
          .length,
        2,
      );
      await agent.close();
    },
  );
});

Deno.test("--endpoint with a --ctx-size larger than the server's context: the refusal's n_ctx becomes the context, and the session goes on", async () => {
  const serverContext = 2900;
  await withHookProject(async (p) => {
    await Deno.writeTextFile(`${p.cwd}/data.txt`, NUMBERS);
    // No /props: the agent has only the user's word, 4096, until the server refuses.
    const server = startFakeServer({
      models: [{ id: "served-model" }],
      contextSize: serverContext,
      usage: {},
      respond: readingModel("fs_read", `${p.cwd}/data.txt`),
    });
    try {
      const agent = await startOn(p, server, ["--ctx-size", String(CONTEXT)]);
      const sessionId = await p.newSession(agent);
      const stops: string[] = [];
      for (let turn = 1; turn <= 12; turn++) {
        stops.push(await prompt(agent, sessionId, `Read data.txt (${turn}).`));
      }
      assertEquals(stops, Array(12).fill("end_turn"));
      const refused = server.requests.filter((body) => promptTokensOf(body) > serverContext);
      assertEquals(refused.length, 1, "refused once, then planned for the server's context");
      const sizes = usageUpdates(agent, sessionId).map((u) => [u.size, Number(u.used)]);
      assertEquals(sizes[0]![0], CONTEXT);
      assertEquals(sizes.at(-1)![0], serverContext);
      assert(sizes.every(([size, used]) => used! <= size!), JSON.stringify(sizes));
      const said = noticesOf(agent, sessionId);
      assertStringIncludes(said.at(-1)!, "of the 2,900-token context");
      await agent.close();
    } finally {
      await server.close();
    }
  });
});
