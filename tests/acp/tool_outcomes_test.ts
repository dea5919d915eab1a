/**
 * Tool hook outcomes as Claude Code 2.1.332 has them (hooks.md §12.3–§12.5), in process: a deny
 * that also adds context, a `defer` that holds the call and ends the turn at once, and a
 * PostToolUse `updatedToolOutput` that replaces what the model reads while the client keeps the
 * real output. Each asserts the exact text the model was given.
 */
import type { GenerateRequest } from "../../src/model/model.ts";
import { claudeTranscriptPathFor } from "../../src/agent/transcript/claude_transcript_path.ts";
import { transcriptPathFor } from "../../src/agent/transcript/transcript_path.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { batches, exists, lastToolCallUpdate, oneCall, text } from "./claude_session_fixture.ts";
import { logging, printing, readLog, settings } from "./hook_fixtures.ts";
import { type InMemoryAgent, withInMemoryAgent } from "./in_memory_agent.ts";

const pre = (json: Record<string, unknown>) =>
  printing({ hookSpecificOutput: { hookEventName: "PreToolUse", ...json } });
const post = (json: Record<string, unknown>) =>
  printing({ hookSpecificOutput: { hookEventName: "PostToolUse", ...json } });
const reminder = (line: string) => `<system-reminder>\n${line}\n</system-reminder>`;

/** The tool results the model was given on `request`, in order. */
function resultsSeen(request: GenerateRequest): string[] {
  return request.conversation.flatMap((item) =>
    item.role === "assistant"
      ? item.segments.flatMap((s) => s.type === "tool_call" ? [s.result] : [])
      : []
  );
}

/** raw.jsonl's `tool_call` records of a session: `result` is what the model was shown. */
async function toolCallRecords(t: InMemoryAgent, sessionId: string) {
  const records = await readLog(transcriptPathFor(sessionId, t.env));
  return records.filter((r) => r.type === "tool_call");
}

function toolCallsAnnounced(t: InMemoryAgent): number {
  return t.updates.filter((u) => u.update.sessionUpdate === "tool_call").length;
}

// §12.3: deny with context.

Deno.test("a PreToolUse deny with additionalContext gives the model the deny, then the context", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        PreToolUse: [
          [
            "fs_write",
            pre({
              permissionDecision: "deny",
              permissionDecisionReason: "no writes today",
              additionalContext: "write to drafts/ instead",
            }),
          ],
          ["fs_write", pre({ additionalContext: "drafts/ is reviewed daily" })],
        ],
      }),
    },
    model: oneCall("fs_write", { file_path: "out.txt", content: "x" }, requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("w") });
    assertEquals(response.stopReason, "end_turn", "a deny lets the turn go on");
    assertEquals(await exists(`${t.cwd}/out.txt`), false);
    const expected = "PreToolUse:fs_write hook error: no writes today\n\n" +
      reminder(
        "PreToolUse:fs_write hook additional context: write to drafts/ instead\n" +
          "drafts/ is reviewed daily",
      );
    assertEquals(resultsSeen(requests[1]!), [expected]);
    const [record] = await toolCallRecords(t, sessionId);
    assertEquals(record!.result, expected);
    // The context is for the model: the client is shown the deny alone.
    const final = lastToolCallUpdate(t.updates);
    assertEquals(final.status, "failed");
    assertEquals(final.content, [{
      type: "content",
      content: { type: "text", text: "PreToolUse:fs_write hook error: no writes today" },
    }]);
  });
});

// §12.4: defer.

const DEFER_PROJECT = {
  ".claude/settings.json": settings({
    PreToolUse: [["shell", pre({ permissionDecision: "defer" })]],
    PostToolUse: [[null, logging("after.log")]],
    PostToolUseFailure: [[null, logging("after.log")]],
    Stop: [[null, logging("after.log")]],
  }),
};

const DEFERRED_SHELL = "The shell call was deferred by a hook: it was not run, and the turn ended";

Deno.test("a PreToolUse defer holds the call: not run, no Post or Stop hook, no more model calls, the turn ends", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: DEFER_PROJECT,
    model: batches([[
      { name: "shell", input: { command: "touch deferred.txt" } },
      { name: "fs_write", input: { file_path: "later.txt", content: "x" } },
    ]], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(response.stopReason, "end_turn");
    assertEquals(response._meta?.hook_stop_reason, "tool_deferred");
    assertEquals(requests.length, 1, "the model was not called again");
    assertEquals(await exists(`${t.cwd}/deferred.txt`), false, "the deferred call never ran");
    assertEquals(await exists(`${t.cwd}/later.txt`), false, "the rest of the batch never ran");
    assertEquals(toolCallsAnnounced(t), 1, "the rest of the batch was never announced");
    assertEquals(t.permissionRequests.length, 0, "a deferred call asks nobody");
    assertEquals(await readLog(`${t.cwd}/after.log`), [], "no Post hook, no Stop hook");
    const final = lastToolCallUpdate(t.updates);
    assertEquals(final.status, "failed");
    assertEquals(final.content, [{
      type: "content",
      content: { type: "text", text: DEFERRED_SHELL },
    }]);
    assertEquals(final._meta, { "llama-agent/hook": { event: "PreToolUse", decision: "defer" } });
    const [record, ...more] = await toolCallRecords(t, sessionId);
    assertEquals(more, []);
    assertEquals(record!.result, DEFERRED_SHELL);

    // The next prompt's model call reads the held call's result, and nothing of the rest.
    await t.agent.request("session/prompt", { sessionId, prompt: text("again") });
    assertEquals(resultsSeen(requests[1]!), [DEFERRED_SHELL]);
  });
});

Deno.test("a defer after a call that ran: the earlier call keeps its result, the turn still ends at the defer", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: { ...DEFER_PROJECT, "notes.txt": "ran first\n" },
    model: batches([[
      { name: "fs_read", input: { file_path: "notes.txt" } },
      { name: "shell", input: { command: "touch deferred.txt" } },
    ]], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(response._meta?.hook_stop_reason, "tool_deferred");
    assertEquals(requests.length, 1);
    const records = await toolCallRecords(t, sessionId);
    assertEquals(records.map((r) => r.status), ["completed", "failed"]);
    assertStringIncludes(String(records[0]!.result), "ran first");
    assertEquals(records[1]!.result, DEFERRED_SHELL);
    const post = await readLog(`${t.cwd}/after.log`);
    assertEquals(post.map((p) => p.hook_event_name), ["PostToolUse"], "only the call that ran");
  });
});

Deno.test("claude profile: a deferred Bash call fires no PostToolBatch and no Stop hook", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    profile: "claude",
    files: {
      ".claude/settings.json": settings({
        PreToolUse: [["Bash", pre({ permissionDecision: "defer" })]],
        PostToolBatch: [[null, logging("after.log")]],
        Stop: [[null, logging("after.log")]],
      }),
    },
    model: batches([[{ name: "Bash", input: { command: "touch deferred.txt" } }]], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(response.stopReason, "end_turn");
    assertEquals(response._meta?.hook_stop_reason, "tool_deferred");
    assertEquals(requests.length, 1);
    assertEquals(await exists(`${t.cwd}/deferred.txt`), false);
    assertEquals(await readLog(`${t.cwd}/after.log`), []);
    const [record] = await toolCallRecords(t, sessionId);
    assertEquals(
      record!.result,
      "The Bash call was deferred by a hook: it was not run, and the turn ended",
    );
  });
});

// §12.5: updatedToolOutput.

Deno.test("PostToolUse updatedToolOutput replaces what the model reads; the last hook wins; context and blocks follow", async () => {
  const requests: GenerateRequest[] = [];
  const blocking = printing({ decision: "block", reason: "the greeting looked odd" });
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        PostToolUse: [
          ["shell", post({ updatedToolOutput: "FIRST" })],
          ["shell", post({ updatedToolOutput: "REWRITTEN", additionalContext: "checked" })],
          ["shell", blocking],
        ],
      }),
    },
    model: oneCall("shell", { command: "echo hi" }, requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("greet") });
    const expected = "REWRITTEN\n\n" +
      reminder("PostToolUse:shell hook additional context: checked") + "\n\n" +
      reminder(
        `PostToolUse:shell hook blocking error from command: "${blocking}": ` +
          "the greeting looked odd",
      );
    assertEquals(resultsSeen(requests[1]!), [expected]);
    const [record] = await toolCallRecords(t, sessionId);
    assertEquals(record!.result, expected);
    // The client is shown what really ran.
    const final = lastToolCallUpdate(t.updates);
    assertEquals(final.status, "completed");
    const shown = JSON.stringify([final.content, final.rawOutput]);
    assertStringIncludes(shown, "hi");
    assert(!shown.includes("REWRITTEN") && !shown.includes("FIRST"), shown);
  });
});

Deno.test("an updatedToolOutput of the shell's own response shape reads as the shell's output; another value as its JSON text", async () => {
  const cases: [unknown, string][] = [
    [{ stdout: "REDACTED\n", stderr: "", exitCode: 0 }, "REDACTED\n"],
    [{ stdout: "", stderr: "" }, "(no output)"],
    [{ redacted: true }, '{"redacted":true}'],
    [{ stdout: 42 }, '{"stdout":42}'],
  ];
  for (const [updatedToolOutput, expected] of cases) {
    const requests: GenerateRequest[] = [];
    await withInMemoryAgent({
      files: {
        ".claude/settings.json": settings({
          PostToolUse: [["shell", post({ updatedToolOutput })]],
        }),
      },
      model: oneCall("shell", { command: "echo secret" }, requests),
    }, async (t) => {
      const sessionId = await t.newSession();
      await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
      assertEquals(resultsSeen(requests[1]!), [expected], JSON.stringify(updatedToolOutput));
    });
  }
});

Deno.test("claude profile: an updatedToolOutput object of Bash's shape reads as Bash's output, as in Claude Code 2.1.332", async () => {
  const cases: [unknown, string][] = [
    [
      {
        stdout: "REWRITTEN",
        stderr: "",
        interrupted: false,
        isImage: false,
        noOutputExpected: false,
      },
      "REWRITTEN",
    ],
    [{ stdout: "\n\nout\n", stderr: " warned \n" }, "out\nwarned"],
    [{ stdout: "", stderr: "" }, "(Bash completed with no output)"],
    [{ note: "not Bash's shape" }, '{"note":"not Bash\'s shape"}'],
  ];
  for (const [updatedToolOutput, expected] of cases) {
    const requests: GenerateRequest[] = [];
    await withInMemoryAgent({
      profile: "claude",
      files: {
        ".claude/settings.json": settings({
          PostToolUse: [["Bash", post({ updatedToolOutput })]],
        }),
      },
      model: oneCall("Bash", { command: "echo hi" }, requests),
    }, async (t) => {
      const sessionId = await t.newSession();
      await t.agent.request("session/prompt", { sessionId, prompt: text("greet") });
      assertEquals(resultsSeen(requests[1]!), [expected], JSON.stringify(updatedToolOutput));
    });
  }
});

Deno.test("claude profile: updatedToolOutput reaches the model; the Claude-format transcript keeps the real tool_result", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    profile: "claude",
    files: {
      ".claude/settings.json": settings({
        PostToolUse: [["Bash", post({ updatedToolOutput: "REWRITTEN" })]],
      }),
    },
    model: oneCall("Bash", { command: "echo hi" }, requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("greet") });
    assertEquals(resultsSeen(requests[1]!), ["REWRITTEN"]);
    assertEquals(
      JSON.stringify(lastToolCallUpdate(t.updates).content).includes("REWRITTEN"),
      false,
    );
    // Written before PostToolUse fires (a Post hook reading the transcript finds the result).
    const claude = await readLog(claudeTranscriptPathFor(t.home, t.cwd, sessionId));
    const results = claude.flatMap((r) => {
      const content = (r.message as { content?: unknown } | undefined)?.content;
      return Array.isArray(content)
        ? content.filter((block) => block?.type === "tool_result").map((block) => block.content)
        : [];
    });
    assertEquals(results, ["hi"]);
  });
});
