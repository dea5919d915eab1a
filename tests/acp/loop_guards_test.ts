/**
 * The loop guards in a turn (loop_guard.ts), through the in-memory agent: a model that repeats
 * a refused call is answered "Already refused" without a hook or a question, a model that repeats
 * a call with the same result is told "Unchanged", and both end the turn with a notice naming
 * the call once they reach their limit.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import type { GenerateRequest } from "../../src/model/model.ts";
import {
  parsePermissionRules,
  type PermissionRule,
} from "../../src/agent/permissions/permission_rules.ts";
import { transcriptPathFor } from "../../src/agent/transcript/transcript_path.ts";
import {
  alreadyRefusedText,
  REFUSED_REPEAT_LIMIT,
  UNCHANGED_CALL_LIMIT,
  UNCHANGED_TEXT,
} from "../../src/acp/turn/loop_guard.ts";
import { noticesOf, withInMemoryAgent } from "./in_memory_agent.ts";
import { callTool, reply, type Step, steppedModel } from "./fake_models.ts";
import { logging, readLog, settings } from "./hook_fixtures.ts";
import type { SessionNotification, ToolCallUpdate } from "@agentclientprotocol/sdk";

const RM = { command: "rm -rf build" };
const RM_WORDS = 'shell {"command":"rm -rf build"}';

/** `steps`, each also keeping the request it was given in `requests`. */
function recorded(requests: GenerateRequest[], steps: readonly Step[]): Step[] {
  return steps.map((step) => (request) => {
    requests.push(request);
    return step(request);
  });
}

/** The results the model read for its tool calls in the last request, in order. */
function resultsSeen(request: GenerateRequest | undefined): string[] {
  const last = request?.conversation.at(-1);
  assert(last?.role === "assistant", "the last item is the assistant's calls");
  return last.segments.flatMap((s) => (s.type === "tool_call" ? [s.result] : []));
}

function rules(list: readonly { tool: string; decision: string }[]): readonly PermissionRule[] {
  const parsed = parsePermissionRules(JSON.stringify({ rules: list }), "rules.json");
  if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
  return parsed.rules;
}

function finalUpdates(updates: readonly SessionNotification[]): ToolCallUpdate[] {
  return updates.flatMap(({ update }) =>
    update.sessionUpdate === "tool_call_update" && update.status !== undefined &&
      update.status !== "in_progress"
      ? [update]
      : []
  );
}

async function toolCallRecords(env: (name: string) => string | undefined, sessionId: string) {
  const text = await Deno.readTextFile(transcriptPathFor(sessionId, env));
  return text.trim().split("\n").map((line) => JSON.parse(line)).filter((r) =>
    r.type === "tool_call"
  );
}

for (const profile of ["llama", "claude"] as const) {
  const tool = profile === "llama" ? "shell" : "Bash";
  const reason = `PreToolUse:${tool} hook error: [./hooks/no_rm.sh]: builds are not deleted here`;
  Deno.test(`${profile} profile: a call a PreToolUse hook denied is answered 'Already refused' on each repeat without the hook, and the turn ends at the limit naming it`, async () => {
    const requests: GenerateRequest[] = [];
    const repeats = Array.from({ length: 8 }, () => callTool(tool, RM));
    await withInMemoryAgent({
      profile,
      files: {
        "hooks/no_rm.sh": `#!/bin/sh\n${
          logging("pre.log")
        }\necho 'builds are not deleted here' >&2\nexit 2\n`,
        ".claude/settings.json": settings({ PreToolUse: [[tool, "./hooks/no_rm.sh"]] }),
      },
      model: steppedModel(recorded(requests, [...repeats, reply("never")])),
    }, async (t) => {
      const sessionId = await t.newSession();
      const response = await t.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "clean the build" }],
      });
      assertEquals(response.stopReason, "max_turn_requests");
      assertEquals(requests.length, 1 + REFUSED_REPEAT_LIMIT, "the model was not asked again");
      assertEquals((await readLog(`${t.cwd}/pre.log`)).length, 1, "the hook fired once");
      assertEquals(t.permissionRequests.length, 0);
      assertEquals(resultsSeen(requests[1]), [reason]);
      assertEquals(resultsSeen(requests.at(-1)), [
        reason,
        ...Array(REFUSED_REPEAT_LIMIT - 1).fill(alreadyRefusedText(reason)),
      ]);
      const finals = finalUpdates(t.updates);
      assertEquals(finals.map((u) => u.status), Array(1 + REFUSED_REPEAT_LIMIT).fill("failed"));
      assertEquals(
        finals.slice(1).map((u) => u._meta),
        Array(REFUSED_REPEAT_LIMIT).fill({ "llama-agent/loop_guard": "already_refused" }),
      );
      const notices = noticesOf(t.updates, sessionId);
      assertEquals(notices.length, 1, notices.join("\n"));
      assertStringIncludes(notices[0]!, `repeated a refused call ${REFUSED_REPEAT_LIMIT} times`);
      assertStringIncludes(notices[0]!, `${tool} {"command":"rm -rf build"}`);
      assertStringIncludes(notices[0]!, "builds are not deleted here");
      const records = await toolCallRecords(t.env, sessionId);
      assertEquals(records.map((r) => r.guard), [
        undefined,
        ...Array(REFUSED_REPEAT_LIMIT).fill("already_refused"),
      ]);
    });
  });
}

for (const refuser of ["the user", "a permission rule"] as const) {
  Deno.test(`a call ${refuser} refused is not asked about again in the turn, and is asked again in the next`, async () => {
    const requests: GenerateRequest[] = [];
    const repeats = Array.from({ length: 1 + REFUSED_REPEAT_LIMIT }, () => callTool("shell", RM));
    await withInMemoryAgent({
      ...(refuser === "the user"
        ? { onPermission: () => ({ outcome: { outcome: "selected", optionId: "reject_once" } }) }
        : { mode: "rule-based", rules: rules([{ tool: "shell", decision: "deny" }]) }),
      model: steppedModel(
        recorded(requests, [...repeats, callTool("shell", RM), reply("I will not delete it")]),
      ),
    }, async (t) => {
      const sessionId = await t.newSession();
      const first = await t.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "clean the build" }],
      });
      assertEquals(first.stopReason, "max_turn_requests");
      const asked = refuser === "the user" ? 1 : 0;
      assertEquals(t.permissionRequests.length, asked, "asked at most once in the turn");
      const refusal = "The user denied permission to run shell";
      assertEquals(resultsSeen(requests.at(-1)).slice(1), [
        ...Array(REFUSED_REPEAT_LIMIT - 1).fill(alreadyRefusedText(refusal)),
      ]);
      assertStringIncludes(noticesOf(t.updates, sessionId).at(-1)!, RM_WORDS);
      // A new prompt is a new turn: the call is gated as any other.
      const second = await t.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "try once more" }],
      });
      assertEquals(second.stopReason, "end_turn");
      assertEquals(t.permissionRequests.length, asked * 2);
      assertEquals(resultsSeen(requests.at(-1)), [refusal]);
    });
  });
}

Deno.test("a model reading the same file six times is told 'Unchanged' from the second read and stopped at the limit", async () => {
  const requests: GenerateRequest[] = [];
  const reads = Array.from({ length: 6 }, () => callTool("fs_read", { file_path: "notes.txt" }));
  await withInMemoryAgent({
    files: { "notes.txt": "buy milk\n" },
    model: steppedModel(recorded(requests, [...reads, reply("never")])),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "what do my notes say?" }],
    });
    assertEquals(response.stopReason, "max_turn_requests");
    assertEquals(requests.length, UNCHANGED_CALL_LIMIT);
    const results = resultsSeen(requests.at(-1));
    assertStringIncludes(results[0]!, "buy milk");
    assertEquals(results.slice(1), Array(UNCHANGED_CALL_LIMIT - 2).fill(UNCHANGED_TEXT));
    // The client sees each read's real output, the repeats marked.
    const finals = finalUpdates(t.updates);
    assertEquals(finals.length, UNCHANGED_CALL_LIMIT);
    for (const update of finals) {
      assertEquals(update.status, "completed");
      assertStringIncludes(JSON.stringify(update.content), "buy milk");
    }
    assertEquals(finals.map((u) => u._meta?.["llama-agent/loop_guard"]), [
      undefined,
      ...Array(UNCHANGED_CALL_LIMIT - 1).fill("unchanged"),
    ]);
    const notices = noticesOf(t.updates, sessionId);
    assertEquals(notices, [
      `The turn was stopped: the model made the same call ${UNCHANGED_CALL_LIMIT} times in a ` +
      'row and got the same result each time (fs_read {"file_path":"notes.txt"}). Send a ' +
      "prompt to tell it what to do next",
    ]);
    const records = await toolCallRecords(t.env, sessionId);
    assertEquals(records.map((r) => r.guard), [
      undefined,
      ...Array(UNCHANGED_CALL_LIMIT - 1).fill("unchanged"),
    ]);
    assertEquals(records.at(-1).result, UNCHANGED_TEXT);
  });
});

Deno.test("six identical reads in one answer: the batch stops at the limit, and the conversation keeps the calls that ran", async () => {
  const requests: GenerateRequest[] = [];
  const batch: Step = () => ({
    text: "",
    thought: "",
    toolCalls: Array.from({ length: 6 }, () => ({
      name: "fs_read",
      input: { file_path: "notes.txt" },
    })),
    stop: "tool_calls",
    tokens: { prompt: 1, evaluated: 1, generated: 1 },
  });
  await withInMemoryAgent({
    files: { "notes.txt": "buy milk\n" },
    model: steppedModel(recorded(requests, [batch, reply("noted")])),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "read" }],
    });
    assertEquals(response.stopReason, "max_turn_requests");
    assertEquals(finalUpdates(t.updates).length, UNCHANGED_CALL_LIMIT);
    await t.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "ok?" }] });
    const kept = requests[1]!.conversation.flatMap((item) =>
      item.role === "assistant" ? item.segments.filter((s) => s.type === "tool_call") : []
    );
    assertEquals(kept.length, UNCHANGED_CALL_LIMIT);
  });
});

Deno.test("the same command with a new result each time is never told 'Unchanged' nor stopped", async () => {
  const requests: GenerateRequest[] = [];
  const count = { command: "echo x >> runs.log && wc -l < runs.log" };
  const calls = Array.from({ length: 6 }, () => callTool("shell", count));
  await withInMemoryAgent({
    model: steppedModel(recorded(requests, [...calls, reply("counted")])),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "count" }],
    });
    assertEquals(response.stopReason, "end_turn");
    const results = resultsSeen(requests.at(-1));
    assertEquals(results.length, 6);
    assert(results.every((r) => r !== UNCHANGED_TEXT), results.join("\n"));
    assertEquals(noticesOf(t.updates, sessionId), []);
  });
});
