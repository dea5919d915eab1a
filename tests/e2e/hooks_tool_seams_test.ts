/**
 * PreToolUse, PostToolUse and PostToolUseFailure at the real dispatch seam, end to end over real
 * stdio (hooks.md §5, §6, §10): one scripted turn makes eleven tool calls, each meeting a
 * different hook behaviour; the files on disk say what ran, the permission requests say what
 * asked, and the transcript says what the model read. The same turn in a session whose
 * settings.local.json says `disableAllHooks` runs no hook at all.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import type { JsonObject } from "../helpers/acp_harness.ts";
import { isObject } from "../helpers/acp_harness.ts";
import {
  exists,
  finalUpdateOf,
  group,
  hook,
  hookCommand,
  metaOf,
  modelTextOf,
  POST_FAILURE_KEYS,
  readHookLog,
  readTranscript,
  runsOf,
  toolCallRecord,
  TURN_PAYLOAD_KEYS,
  withHookProject,
} from "./hook_project.ts";
import { ANSWER, CALLS, FILES, LOCAL_HOOKS, REPLIES, SETTINGS } from "./tool_hooks_scenario.ts";
import { allowAndRecord, reminder, textPrompt as text } from "./e2e_project.ts";

const useIds = (runs: readonly { payload: JsonObject }[]) => runs.map((r) => r.payload.tool_use_id);

Deno.test("tool hooks at the dispatch seam: deny, rewrite, ask, allow, matchers, Post context and blocks", async (t) => {
  await withHookProject(async (p) => {
    await p.writeHome({
      settings: { hooks: { PreToolUse: [group("fs_write", hook("home_pre", {}, "$HOME"))] } },
    });
    const dir = await p.sessionDir("tools", {
      settings: SETTINGS,
      local: { hooks: LOCAL_HOOKS },
      replies: REPLIES,
      files: FILES,
    });
    const off = await p.sessionDir("disabled", {
      settings: SETTINGS,
      local: { disableAllHooks: true, hooks: LOCAL_HOOKS },
      replies: REPLIES,
      files: FILES,
    });
    const agent = await p.startAgent(
      await p.scriptedModel([{ toolCalls: [...CALLS] }, { text: ANSWER }]),
    );
    const asked = allowAndRecord(agent);
    const sessionId = await p.newSessionIn(agent, dir);
    const result = await agent.call("session/prompt", {
      sessionId,
      prompt: text("do the work"),
    }) as JsonObject;
    const records = await readTranscript(p.home, sessionId);
    const resultOf = (id: string) => String(toolCallRecord(records, id).result);

    await t.step("the model gets a result for every call and goes on to its answer", () => {
      assertEquals(result.stopReason, "end_turn");
      assertEquals(modelTextOf(agent, sessionId), ANSWER);
      assertEquals(records.filter((r) => r.type === "tool_call").length, CALLS.length);
    });

    await t.step(
      "PreToolUse deny prevents the dispatch and the model reads the reason",
      async () => {
        assertEquals(await exists(`${dir}/denied.txt`), false);
        const final = finalUpdateOf(agent, sessionId, "call_1");
        assertEquals(final.status, "failed");
        assertEquals(final._meta, {
          "llama-agent/hook": {
            event: "PreToolUse",
            decision: "deny",
            reason: "no writes to denied.txt",
          },
        });
        assertEquals(resultOf("call_1"), "PreToolUse:fs_write hook error: no writes to denied.txt");
        assertStringIncludes(JSON.stringify(final.content), "no writes to denied.txt");
        assert(
          !agent.toolCallUpdates(sessionId).some((u) =>
            u.toolCallId === "call_1" && u.status === "in_progress"
          ),
          "the denied call never started",
        );
      },
    );

    await t.step(
      "a call denied by a hook fires neither PostToolUse nor PostToolUseFailure",
      async () => {
        assert(!useIds(await runsOf(dir, "post_all")).includes("call_1"));
        assert(!useIds(await runsOf(dir, "post_fail")).includes("call_1"));
      },
    );

    await t.step(
      "updatedInput is kept on allow, and allow skips the permission prompt for fs_write",
      async () => {
        assertEquals(await Deno.readTextFile(`${dir}/allowed.txt`), "rewritten by the hook\n");
        const rewritten = { file_path: "allowed.txt", content: "rewritten by the hook\n" };
        assertEquals(toolCallRecord(records, "call_2").input, rewritten);
        assert(
          agent.toolCallUpdates(sessionId).some((u) =>
            u.toolCallId === "call_2" && u.sessionUpdate === "tool_call_update" &&
            JSON.stringify(u.rawInput) === JSON.stringify(rewritten)
          ),
          "the client sees the call as it runs",
        );
        assert(!asked.get(sessionId)?.includes("call_2"));
      },
    );

    await t.step(
      "updatedInput without a decision rewrites the input; PreToolUse context reaches the model",
      () => {
        assertEquals(toolCallRecord(records, "call_4").input, { file_path: "real.txt" });
        const seen = resultOf("call_4");
        assertStringIncludes(seen, "real content");
        assert(!seen.includes("decoy content"), seen);
        assert(
          seen.endsWith(
            "\n\n" + reminder("PreToolUse:fs_read hook additional context: read real.txt instead"),
          ),
          seen,
        );
      },
    );

    await t.step("permissionDecision ask sends session/request_permission even for fs_read", () => {
      assert(asked.get(sessionId)?.includes("call_5"), JSON.stringify([...asked]));
      assertEquals(finalUpdateOf(agent, sessionId, "call_5").status, "completed");
    });

    await t.step(
      "matchers test the emitted name: fs_write misses write_file, shell|terminal hits both",
      async () => {
        assertEquals(useIds(await runsOf(dir, "pre_deny")), ["call_1", "call_2"]);
        assertEquals(useIds(await runsOf(dir, "local_alias")), ["call_3"]);
        assertEquals(
          (await runsOf(dir, "pre_shell")).map((r) => [r.payload.tool_use_id, r.payload.tool_name]),
          [["call_6", "shell"], ["call_7", "terminal"]],
        );
        assertEquals(await Deno.readTextFile(`${dir}/aliased.txt`), "via the alias\n");
        assertEquals(asked.get(sessionId), ["call_3", "call_5", "call_6", "call_7"]);
      },
    );

    await t.step(
      "PreToolUse fires exactly once per call, HOME and project hooks both",
      async () => {
        assertEquals(useIds(await runsOf(dir, "home_pre")), ["call_1", "call_2"]);
        assertEquals(useIds(await runsOf(dir, "pre_rewrite")), [
          "call_4",
          "call_5",
          "call_8",
          "call_9",
          "call_10",
          "call_11",
        ]);
      },
    );

    await t.step(
      "the PreToolUse payload has Claude Code's fields in order, the input as emitted",
      async () => {
        const [run] = await runsOf(dir, "pre_allow");
        const [ups] = await runsOf(dir, "pre_rewrite");
        assert(run && ups);
        assertEquals(Object.keys(run.payload), [
          ...TURN_PAYLOAD_KEYS,
          "tool_name",
          "tool_input",
          "tool_use_id",
        ]);
        assertEquals(run.payload.session_id, sessionId);
        assertEquals(run.payload.cwd, dir);
        assertEquals(run.payload.permission_mode, "acceptEdits");
        assertEquals(run.payload.hook_event_name, "PreToolUse");
        assertEquals(run.payload.tool_name, "fs_write");
        assertEquals(run.payload.tool_input, CALLS[0].input);
        assertEquals(typeof run.payload.prompt_id, "string");
        assertEquals(ups.payload.prompt_id, run.payload.prompt_id);
        assert(run.transcriptExists);
        assertEquals([run.pwd, run.projectDir], [dir, dir]);
      },
    );

    await t.step("PostToolUse additionalContext reaches the model after a successful call", () => {
      const seen = resultOf("call_8");
      assertStringIncludes(seen, "ok content");
      assert(
        seen.endsWith(
          "\n\n" + reminder("PostToolUse:fs_read hook additional context: ok was checked"),
        ),
        seen,
      );
    });

    await t.step("PostToolUse decision:block is not ignored: its reason reaches the model", () => {
      const seen = resultOf("call_9");
      assertStringIncludes(seen, "odd content");
      assert(
        seen.endsWith(reminder(
          `PostToolUse:fs_read hook blocking error from command: "${
            hookCommand("post_block")
          }": blocked.txt looked odd`,
        )),
        seen,
      );
    });

    await t.step("PostToolUse exit-2 stderr reaches the model", () => {
      const cmd = hookCommand("post_exit2");
      assert(
        resultOf("call_10").endsWith(reminder(
          `PostToolUse:fs_read hook blocking error from command: "${cmd}": [${cmd}]: exit2.txt needs review`,
        )),
        resultOf("call_10"),
      );
    });

    await t.step(
      "the PostToolUse payload adds tool_response and duration_ms, with the dispatched input",
      async () => {
        const runs = await runsOf(dir, "post_all");
        assertEquals(useIds(runs), [
          "call_2",
          "call_3",
          "call_4",
          "call_5",
          "call_6",
          "call_7",
          "call_8",
          "call_9",
          "call_10",
        ]);
        const run = runs.find((r) => r.payload.tool_use_id === "call_4")!;
        assertEquals(Object.keys(run.payload).slice(6), [
          "tool_name",
          "tool_input",
          "tool_response",
          "tool_use_id",
          "duration_ms",
        ]);
        assertEquals(run.payload.hook_event_name, "PostToolUse");
        assertEquals(run.payload.tool_input, { file_path: "real.txt" });
        assertEquals(typeof run.payload.duration_ms, "number");
        assertStringIncludes(JSON.stringify(run.payload.tool_response), "real content");
      },
    );

    await t.step(
      "PostToolUseFailure fires for a failing call with error and is_interrupt false",
      async () => {
        const runs = await runsOf(dir, "post_fail");
        assertEquals(useIds(runs), ["call_11"]);
        const payload = runs[0]!.payload;
        assertEquals(payload.hook_event_name, "PostToolUseFailure");
        assertEquals(Object.keys(payload).slice(6), [...POST_FAILURE_KEYS]);
        assertEquals(payload.is_interrupt, false);
        assert(typeof payload.error === "string" && payload.error !== "", "an error text");
      },
    );

    await t.step(
      "a hard tool error reaches the model, with PostToolUseFailure context",
      async () => {
        const record = toolCallRecord(records, "call_11");
        assertEquals(record.status, "failed");
        const [run] = await runsOf(dir, "post_fail");
        const seen = String(record.result);
        assert(seen.startsWith(String(run?.payload.error)), seen);
        assert(
          seen.endsWith(
            "\n\n" +
              reminder(
                "PostToolUseFailure:fs_read hook additional context: the file may be elsewhere",
              ),
          ),
          seen,
        );
        assertEquals(finalUpdateOf(agent, sessionId, "call_11").status, "failed");
      },
    );

    const offId = await p.newSessionIn(agent, off);
    const offResult = await agent.call("session/prompt", {
      sessionId: offId,
      prompt: text("do the work"),
    }) as JsonObject;
    await t.step(
      "disableAllHooks in settings.local.json disables every tool hook of every file",
      async () => {
        assertEquals(offResult.stopReason, "end_turn");
        assertEquals(await readHookLog(off), [], "no hook script ran at all");
        assertEquals(await Deno.readTextFile(`${off}/denied.txt`), "should not exist\n");
        assertEquals(await Deno.readTextFile(`${off}/allowed.txt`), "from the model\n");
        assertEquals(asked.get(offId), ["call_1", "call_2", "call_3", "call_6", "call_7"]);
        const offRecords = await readTranscript(p.home, offId);
        for (const record of offRecords.filter((r) => r.type === "tool_call")) {
          assert(!String(record.result).includes("<system-reminder>"), String(record.result));
        }
        assertEquals(toolCallRecord(offRecords, "call_4").input, { file_path: "decoy.txt" });
        assert(
          !agent.toolCallUpdates(offId).some((u) =>
            isObject(u._meta) && "llama-agent/hook" in u._meta
          ),
        );
        assertEquals(metaOf(offResult).hook_should_continue, undefined);
      },
    );
    await agent.close();
  });
});
