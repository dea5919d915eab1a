/**
 * Hooks that fail, stop or hang, end to end over real stdio (hooks.md §1, §5, §7, §11): a
 * timeout and a crash are non-blocking (the action proceeds, the user is told, the model is
 * not), unless `onFailure:"block"`; a timed-out hook is killed; one bad entry or bad regex
 * costs only itself; `continue:false` from PreToolUse ends the turn before the tool runs; a
 * cancel during a running hook answers at once and kills it.
 */
import { assert, assertEquals, assertLess, assertStringIncludes } from "../helpers/assert.ts";
import type { JsonObject } from "../helpers/acp_harness.ts";
import { livingPidsMatching } from "../hooks/process_probe.ts";
import { textPrompt as text } from "./e2e_project.ts";
import { waitUntil } from "../helpers/wait_until.ts";
import {
  exists,
  finalUpdateOf,
  group,
  hook,
  hookCommand,
  metaOf,
  modelTextOf,
  modelVisibleTexts,
  noticesOf,
  readHookLog,
  readTranscript,
  runsOf,
  toolCallRecord,
  uniqueSeconds,
  withHookProject,
} from "./hook_project.ts";

/** Living processes of hook `tag`: the script itself, or the `sh -c` that started it. */
async function hookProcesses(dir: string, tag: string): Promise<number[]> {
  return [
    ...await livingPidsMatching(`${dir}/hooks/hook.sh ${tag}`),
    ...await livingPidsMatching(`hook.sh" ${tag}`),
  ];
}

const CALLS = [
  { name: "fs_write", input: { file_path: "slow.txt", content: "after a timeout\n" } },
  { name: "fs_write", input: { file_path: "crash.txt", content: "after a crash\n" } },
  { name: "fs_read", input: { file_path: "strict.txt" } },
  { name: "fs_read", input: { file_path: "plain.txt" } },
] as const;
const ANSWER = "Finished.";
const FILES = { "strict.txt": "strict content\n", "plain.txt": "plain content\n" };

Deno.test("failing, stopping and hanging hooks: non-blocking errors, onFailure, bad entries, continue:false, cancel", async (t) => {
  const slowSleep = uniqueSeconds(28);
  const cancelSleep = uniqueSeconds(29);
  await withHookProject(async (p) => {
    const failures = await p.sessionDir("failures", {
      settings: {
        hooks: {
          PreToolUse: [
            group("fs_write", hook("slow", { timeout: 1 }), hook("crashy")),
            group("fs_read", hook("strict", { onFailure: "block" })),
            group("fs_(read", hook("bad_regex")),
            group(undefined, hook("bad_timeout", { timeout: "soon" }), hook("all_pre")),
          ],
          NotAnEvent: [group(undefined, hook("unknown_event"))],
        },
      },
      replies: {
        slow: { when: '"slow.txt"', sleep: slowSleep },
        crashy: { when: '"crash.txt"', crash: true },
        strict: { when: '"strict.txt"', crash: true },
      },
      files: FILES,
    });
    const halt = await p.sessionDir("halt", {
      settings: { hooks: { PreToolUse: [group(undefined, hook("halt"))] } },
      replies: { halt: { out: { continue: false, stopReason: "halted by hook" } } },
      files: FILES,
    });
    const cancel = await p.sessionDir("cancel", {
      settings: {
        hooks: {
          PreToolUse: [group(undefined, hook("pre_sleep"))],
          PostToolUseFailure: [group(undefined, hook("post_fail"))],
          Stop: [group(undefined, hook("stop"))],
        },
      },
      replies: { pre_sleep: { sleep: cancelSleep } },
      files: FILES,
    });
    const agent = await p.startAgent(
      await p.scriptedModel([{ toolCalls: [...CALLS] }, { text: ANSWER }]),
    );
    agent.onRequest(
      "session/request_permission",
      () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
    );

    const failuresId = await p.newSessionIn(agent, failures);
    const result = await agent.call("session/prompt", {
      sessionId: failuresId,
      prompt: text("go"),
    }) as JsonObject;
    const records = await readTranscript(p.home, failuresId);
    const notices = noticesOf(agent, failuresId);

    await t.step(
      "a timed-out hook does not block: the call runs and the user is told",
      async () => {
        assertEquals(await Deno.readTextFile(`${failures}/slow.txt`), "after a timeout\n");
        const timeoutNotice = notices.find((n) =>
          n.startsWith("A hook didn't answer in time, so it didn't check this action.\n")
        );
        assert(timeoutNotice, notices.join("\n---\n"));
        assertStringIncludes(timeoutNotice, `[${hookCommand("slow")}]: `);
      },
    );

    await t.step("a timed-out hook is not left running", async () => {
      assertEquals(await livingPidsMatching(`sleep ${slowSleep}`), []);
      assertEquals(await hookProcesses(failures, "slow"), []);
    });

    await t.step(
      "a crashing hook does not block either: the call runs and the user is told",
      async () => {
        assertEquals(await Deno.readTextFile(`${failures}/crash.txt`), "after a crash\n");
        assert(
          notices.includes(
            "A hook gave no usable answer, so it didn't check this action.\n" +
              `[${hookCommand("crashy")}]: about to crash`,
          ),
          notices.join("\n---\n"),
        );
      },
    );

    await t.step("with onFailure block a crashing hook denies the call", () => {
      const reason = `[${hookCommand("strict")}]: about to crash`;
      const final = finalUpdateOf(agent, failuresId, "call_3");
      assertEquals(final.status, "failed");
      assertEquals(final._meta, {
        "llama-agent/hook": { event: "PreToolUse", decision: "deny", reason },
      });
      assertEquals(
        toolCallRecord(records, "call_3").result,
        `PreToolUse:fs_read hook error: ${reason}`,
      );
    });

    await t.step("non-blocking failures reach the user only, never the model", () => {
      const seen = modelVisibleTexts(records).join("\n");
      for (const hidden of ["didn't answer in time", "no usable answer", "crashy"]) {
        assert(!seen.includes(hidden), `the model read "${hidden}"`);
      }
      assertEquals(result.stopReason, "end_turn");
      assertEquals(modelTextOf(agent, failuresId), ANSWER);
    });

    await t.step(
      "one bad entry and one bad regex cost only themselves; the rest of the file loads",
      async () => {
        assertEquals(
          (await runsOf(failures, "all_pre")).map((r) => r.payload.tool_use_id),
          ["call_1", "call_2", "call_3", "call_4"],
        );
        const tags = new Set((await readHookLog(failures)).map((r) => r.tag));
        for (const skipped of ["bad_regex", "bad_timeout", "unknown_event"]) {
          assert(!tags.has(skipped), `"${skipped}" ran`);
        }
        assertEquals(finalUpdateOf(agent, failuresId, "call_4").status, "completed");
        // Configuration problems are data: the agent says where they are.
        assertStringIncludes(agent.stderr, "/hooks/PreToolUse/3/hooks/0/timeout");
        assertStringIncludes(agent.stderr, "/hooks/PreToolUse/2");
        assertStringIncludes(agent.stderr, "NotAnEvent");
      },
    );

    const haltId = await p.newSessionIn(agent, halt);
    const halted = await agent.call("session/prompt", {
      sessionId: haltId,
      prompt: text("go"),
    }) as JsonObject;
    await t.step(
      "continue:false from PreToolUse ends the turn with hook_stop_reason, the tool not run",
      async () => {
        assertEquals(halted.stopReason, "end_turn");
        assertEquals(metaOf(halted).hook_stop_reason, "halted by hook");
        assertEquals(await exists(`${halt}/slow.txt`), false);
        const announced = agent.toolCallUpdates(haltId).filter((u) =>
          u.sessionUpdate === "tool_call"
        );
        assertEquals(announced.map((u) => u.toolCallId), ["call_1"], "the other calls never ran");
        assertEquals(finalUpdateOf(agent, haltId, "call_1").status, "failed");
        assertEquals((await runsOf(halt, "halt")).length, 1);
        assertEquals(modelTextOf(agent, haltId), "", "the model was not invoked again");
        assert(
          noticesOf(agent, haltId).includes(
            "PreToolUse:fs_write hook stopped continuation: halted by hook",
          ),
          noticesOf(agent, haltId).join("\n"),
        );
        const haltRecords = await readTranscript(p.home, haltId);
        assertEquals(toolCallRecord(haltRecords, "call_1").status, "failed");
      },
    );

    const cancelId = await p.newSessionIn(agent, cancel);
    const prompt = agent.request("session/prompt", { sessionId: cancelId, prompt: text("go") });
    await waitUntil(
      async () => (await livingPidsMatching(`sleep ${cancelSleep}`)).length > 0,
      "the hook to start sleeping",
    );
    const sent = performance.now();
    await agent.notify("session/cancel", { sessionId: cancelId });
    const response = await prompt;
    const tookMs = performance.now() - sent;
    await t.step("cancel during a running hook answers cancelled within 500 ms", () => {
      assertEquals((response.result as JsonObject).stopReason, "cancelled");
      assertLess(tookMs, 500);
    });
    await t.step("cancel leaves no hook process behind and the call is never run", async () => {
      assertEquals(await livingPidsMatching(`sleep ${cancelSleep}`), []);
      assertEquals(await hookProcesses(cancel, "pre_sleep"), []);
      assertEquals(await exists(`${cancel}/slow.txt`), false);
      assertEquals(finalUpdateOf(agent, cancelId, "call_1").status, "failed");
      // A hook killed because the user cancelled is no news to the user.
      assertEquals(noticesOf(agent, cancelId), []);
    });
    await t.step(
      "a call cancelled before dispatch fires no PostToolUseFailure, and no Stop follows a cancel",
      async () => {
        assertEquals(await runsOf(cancel, "post_fail"), []);
        assertEquals(await runsOf(cancel, "stop"), []);
      },
    );
    await agent.close();
  });
});

Deno.test("a cancel during a running tool fires PostToolUseFailure with is_interrupt true", async () => {
  const seconds = uniqueSeconds(26);
  await withHookProject(async (p) => {
    const dir = await p.sessionDir("interrupt", {
      settings: {
        hooks: {
          PostToolUseFailure: [group("shell", hook("post_fail"))],
          Stop: [group(undefined, hook("stop"))],
        },
      },
    });
    const agent = await p.startAgent(
      await p.scriptedModel([
        { toolCalls: [{ name: "shell", input: { command: `sleep ${seconds}` } }] },
        { text: ANSWER },
      ]),
    );
    agent.onRequest(
      "session/request_permission",
      () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
    );
    const sessionId = await p.newSessionIn(agent, dir);
    const prompt = agent.request("session/prompt", { sessionId, prompt: text("wait") });
    await waitUntil(
      async () => (await livingPidsMatching(`sleep ${seconds}`)).length > 0,
      "the shell to start",
    );
    await agent.notify("session/cancel", { sessionId });
    const response = await prompt;
    assertEquals((response.result as JsonObject).stopReason, "cancelled");
    assertEquals(await livingPidsMatching(`sleep ${seconds}`), []);
    await waitUntil(
      async () => (await runsOf(dir, "post_fail")).length > 0,
      "PostToolUseFailure",
      3_000,
    ).catch(() => {});
    const runs = await runsOf(dir, "post_fail");
    assertEquals(runs.map((r) => [r.payload.tool_use_id, r.payload.is_interrupt]), [
      ["call_1", true],
    ]);
    assertEquals(await runsOf(dir, "stop"), [], "no Stop after a cancel");
    await agent.close();
  });
});
