/**
 * CLAUDE_ENV_FILE on the real llama path (hooks.md §12.7): a SessionStart hook writes
 * `export FOO=...` to its file, and the generated model's `shell` call `echo "FOO=$FOO"` gets
 * the value, over real stdio, while a PreToolUse hook of the same call does not; a load in a
 * new agent process fires SessionStart again (source resume) with new files, and the next call
 * gets what that firing wrote. What the model received is read from the transcript.
 */
import { assertEquals } from "../helpers/assert.ts";
import type { JsonObject } from "../helpers/acp_harness.ts";
import { writeToolCallModel } from "../helpers/test_models.ts";
import { readTranscript, toolCallRecord, withHookProject } from "./hook_project.ts";
import { allowAndRecord, textPrompt as text } from "./e2e_project.ts";

/** `bar` on startup, `again` on resume. */
const WRITE_ENV = `case "$(cat)" in *'"source":"resume"'*) v=again ;; *) v=bar ;; esac; ` +
  `printf 'export FOO=%s\\n' "$v" >> "$CLAUDE_ENV_FILE"`;
const PRE_SEES = `printf '%s\\n' "\${FOO-unset}" >> "$CLAUDE_PROJECT_DIR/pre_foo.txt"`;

Deno.test("llama: export FOO in CLAUDE_ENV_FILE reaches the model's shell call, not a later hook", async (t) => {
  await withHookProject(async (p) => {
    const dir = await p.sessionDir("work", {
      settings: {
        hooks: {
          SessionStart: [{ hooks: [{ type: "command", command: WRITE_ENV }] }],
          PreToolUse: [{ matcher: "shell", hooks: [{ type: "command", command: PRE_SEES }] }],
        },
      },
    });
    const model = await writeToolCallModel(p.models, {
      toolName: "shell",
      params: { command: 'echo "FOO=$FOO"' },
      answer: "FOO is shown.",
    });

    const first = await p.startAgent(model);
    allowAndRecord(first);
    const sessionId = await p.newSessionIn(first, dir);
    const answer = await first.call("session/prompt", {
      sessionId,
      prompt: text("show FOO"),
    }) as JsonObject;
    await t.step("the shell call's result, as the model got it, is FOO=bar", async () => {
      assertEquals(answer.stopReason, "end_turn");
      const records = await readTranscript(p.home, sessionId);
      assertEquals(toolCallRecord(records, "call_1").result, "FOO=bar\n");
    });
    await t.step("the PreToolUse hook of that call does not get FOO", async () => {
      assertEquals(await Deno.readTextFile(`${dir}/pre_foo.txt`), "unset\n");
    });
    await first.close();

    const second = await p.startAgent(model);
    allowAndRecord(second);
    await second.call("session/load", { sessionId, cwd: dir, mcpServers: [] });
    await second.call("session/prompt", { sessionId, prompt: text("show FOO again") });
    await t.step("a load in a new process runs SessionStart again, with new files", async () => {
      const records = await readTranscript(p.home, sessionId);
      assertEquals(toolCallRecord(records, "call_2").result, "FOO=again\n");
      assertEquals(await Deno.readTextFile(`${dir}/pre_foo.txt`), "unset\nunset\n");
    });
    await second.close();
  });
});
