/**
 * A failing `shell` command in the default profile on the real llama path (hooks.md §12.1): a
 * generated GGUF model through node-llama-cpp runs `echo oops >&2; exit 3` over real stdio;
 * PostToolUseFailure fires with Claude Code's `error`, PostToolUse does not, the client sees the
 * call failed, and the model reads exactly the error text, then what the failure hooks add.
 */
import { assertEquals } from "../helpers/assert.ts";
import type { AcpHarness, JsonObject } from "../helpers/acp_harness.ts";
import { writeToolCallModel } from "../helpers/test_models.ts";
import { allowAndRecord, reminder, textPrompt as text } from "./e2e_project.ts";
import {
  finalUpdateOf,
  group,
  hook,
  hookCommand,
  type HookDir,
  type HookProject,
  POST_FAILURE_KEYS,
  readTranscript,
  runsOf,
  toolCallRecord,
  TURN_PAYLOAD_KEYS,
  withHookProject,
} from "./hook_project.ts";

const FAILING = { command: "echo oops >&2; exit 3" };

/** A session cwd made from `spec`, whose one prompt has the model run `FAILING` through `shell`. */
async function promptFailingShell(p: HookProject, spec: HookDir): Promise<{
  readonly dir: string;
  readonly agent: AcpHarness;
  readonly sessionId: string;
  readonly result: JsonObject;
}> {
  const dir = await p.sessionDir("work", spec);
  const model = await writeToolCallModel(p.models, {
    toolName: "shell",
    params: FAILING,
    answer: "The command failed.",
  });
  const agent = await p.startAgent(model);
  allowAndRecord(agent);
  const sessionId = await p.newSessionIn(agent, dir);
  const result = await agent.call("session/prompt", {
    sessionId,
    prompt: text("run it"),
  }) as JsonObject;
  return { dir, agent, sessionId, result };
}

Deno.test("llama, default profile: a shell exit 3 fires PostToolUseFailure and the model reads `Exit code 3\\noops`", async () => {
  await withHookProject(async (p) => {
    const { dir, agent, sessionId, result } = await promptFailingShell(p, {
      settings: {
        hooks: {
          PostToolUse: [group("shell", hook("post"))],
          PostToolUseFailure: [group("shell", hook("post_fail"))],
        },
      },
    });

    assertEquals(result.stopReason, "end_turn");
    const [failure, ...more] = await runsOf(dir, "post_fail");
    assertEquals(more, []);
    assertEquals(Object.keys(failure!.payload), [...TURN_PAYLOAD_KEYS, ...POST_FAILURE_KEYS]);
    assertEquals(failure!.payload.hook_event_name, "PostToolUseFailure");
    assertEquals(failure!.payload.tool_name, "shell");
    assertEquals(failure!.payload.tool_input, FAILING);
    assertEquals(failure!.payload.tool_use_id, "call_1");
    assertEquals(failure!.payload.error, "Exit code 3\noops");
    assertEquals(failure!.payload.is_interrupt, false);
    assertEquals(await runsOf(dir, "post"), [], "a failed call fires no PostToolUse");
    assertEquals(finalUpdateOf(agent, sessionId, "call_1").status, "failed");
    const seen = toolCallRecord(await readTranscript(p.home, sessionId), "call_1").result;
    assertEquals(seen, "Exit code 3\noops");
    await agent.close();
  });
});

Deno.test("llama, default profile: PostToolUseFailure context and an exit-2 block follow the shell's error for the model", async () => {
  await withHookProject(async (p) => {
    const { agent, sessionId } = await promptFailingShell(p, {
      settings: {
        hooks: {
          PostToolUseFailure: [group("shell", hook("fail_context"), hook("fail_block"))],
        },
      },
      replies: {
        fail_context: {
          out: {
            hookSpecificOutput: {
              hookEventName: "PostToolUseFailure",
              additionalContext: "run make clean first",
            },
          },
        },
        fail_block: { err: "do not retry blindly", code: 2 },
      },
    });

    const block = hookCommand("fail_block");
    const seen = toolCallRecord(await readTranscript(p.home, sessionId), "call_1").result;
    assertEquals(
      seen,
      "Exit code 3\noops\n\n" +
        reminder("PostToolUseFailure:shell hook additional context: run make clean first") +
        "\n\n" +
        reminder(
          `PostToolUseFailure:shell hook blocking error from command: "${block}": ` +
            `[${block}]: do not retry blindly`,
        ),
    );
    await agent.close();
  });
});
