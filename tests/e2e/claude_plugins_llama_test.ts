/**
 * Issue 14 on the real llama path: generated GGUF models through node-llama-cpp, the agent over
 * real stdio with `--compat claude`. A Claude Code plugin given with `--plugin-dir` guards the
 * model's `Bash` call with a script under `${CLAUDE_PLUGIN_ROOT}`; and a Stop gate of the popular
 * loop pattern reads the last assistant message from the Claude-format transcript at
 * `transcript_path` and blocks once.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import type { JsonObject } from "../helpers/acp_harness.ts";
import { REPLY_TEXT, writeReplyModel, writeToolCallModel } from "../helpers/test_models.ts";
import { pluginHooksJson, writePlugin } from "../hooks/plugin_fixture.ts";
import { textPrompt as text } from "./e2e_project.ts";
import { continueOnStop, exists, finalUpdateOf, withHookProject } from "./hook_project.ts";

/** A plugin guard: it logs what it got, then refuses `rm -rf` with exit 2. */
const PLUGIN_GUARD = `#!/usr/bin/env bash
input=$(cat)
printf '%s\\t%s\\n' "$CLAUDE_PLUGIN_ROOT" "$CLAUDE_PLUGIN_DATA" >> "$CLAUDE_PROJECT_DIR/plugin_env.log"
if jq -r '.tool_input.command' <<<"$input" | grep -q 'rm -rf'; then
  echo "Blocked by the safety plugin: rm -rf" >&2
  exit 2
fi
exit 0
`;

/**
 * The loop pattern: read the transcript, take the last assistant text, and ask for one more pass
 * unless this is already a continuation (`stop_hook_active`).
 */
const STOP_GATE = `#!/usr/bin/env bash
input=$(cat)
transcript=$(jq -r '.transcript_path' <<<"$input")
last=$(jq -rs '[.[] | select(.type == "assistant") | .message.content[] | select(.type == "text") | .text] | last // ""' "$transcript")
printf '%s\\n' "$last" >> "$CLAUDE_PROJECT_DIR/gate_saw.log"
printf '%s\\n' "$transcript" > "$CLAUDE_PROJECT_DIR/gate_transcript.log"
if [[ "$(jq -r '.stop_hook_active' <<<"$input")" == "true" ]]; then exit 0; fi
if [[ -z "$last" ]]; then echo "No assistant messages" >&2; exit 0; fi
jq -nc --arg last "$last" '{decision: "block", reason: ("Check your answer once more: " + $last)}'
`;

async function linesOf(path: string): Promise<string[]> {
  const text = await Deno.readTextFile(path).catch(() => "");
  return text.split("\n").filter((line) => line !== "");
}

Deno.test("llama, --compat claude --plugin-dir: a plugin guard under ${CLAUDE_PLUGIN_ROOT} blocks rm -rf; nothing is deleted", async () => {
  await withHookProject(async (p) => {
    const dir = await p.sessionDir("work", { files: { "victim/keep.txt": "precious\n" } });
    const plugin = await writePlugin(`${p.cwd}/safety`, "safety", {
      hooksJson: pluginHooksJson({
        PreToolUse: [{
          matcher: "Bash",
          hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh" }],
        }],
      }),
      files: { "hooks/guard.sh": PLUGIN_GUARD },
    });
    const model = await writeToolCallModel(p.models, {
      toolName: "Bash",
      params: { command: "rm -rf victim" },
      answer: "The deletion was refused.",
    });
    const agent = await p.startAgent(model, ["--compat", "claude", "--plugin-dir", plugin]);
    const sessionId = await p.newSessionIn(agent, dir);
    const result = await agent.call("session/prompt", {
      sessionId,
      prompt: text("clean up"),
    }) as JsonObject;

    assertEquals(result.stopReason, "end_turn");
    assertEquals(await exists(`${dir}/victim/keep.txt`), true);
    assertEquals(finalUpdateOf(agent, sessionId, "call_1").status, "failed");
    const [env] = await linesOf(`${dir}/plugin_env.log`);
    assertEquals(env, `${plugin}\t${p.home}/.claude/plugins/data/safety-inline`);
    assertEquals(
      (await Deno.stat(`${p.home}/.claude/plugins/data/safety-inline`)).isDirectory,
      true,
    );
    await agent.close();
  });
});

Deno.test("llama, --compat claude: a Stop gate reads the last assistant message from the Claude-format transcript and blocks once", async () => {
  await withHookProject(async (p) => {
    const dir = await p.sessionDir("work", {
      settings: {
        hooks: {
          Stop: [{
            hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/gate.sh' }],
          }],
        },
      },
      files: { ".claude/hooks/gate.sh": STOP_GATE },
    });
    await Deno.chmod(`${dir}/.claude/hooks/gate.sh`, 0o755);
    const model = await writeReplyModel(p.models);
    const agent = await p.startAgent(model, ["--compat", "claude"]);
    const sessionId = await p.newSessionIn(agent, dir);
    await continueOnStop(agent, sessionId);
    const result = await agent.call("session/prompt", {
      sessionId,
      prompt: text("say hello"),
    }) as JsonObject;

    assertEquals(result.stopReason, "end_turn");
    // Twice: the block, then the continuation it allowed; each time the turn it judged was there.
    assertEquals(await linesOf(`${dir}/gate_saw.log`), [REPLY_TEXT, REPLY_TEXT]);
    // Claude Code's path: the cwd with "/" (and, here, every other such character) as "-".
    const transcript = `${p.home}/.claude/projects/${dir.replace(/[^A-Za-z0-9-]/g, "-")}/` +
      `${sessionId}.jsonl`;
    assertEquals(await linesOf(`${dir}/gate_transcript.log`), [transcript]);
    const records = (await linesOf(transcript)).map((line) => JSON.parse(line) as JsonObject);
    const types = records.filter((r) => typeof r.uuid === "string").map((r) => r.type);
    assertEquals(types[0], "user");
    assertEquals(types.filter((type) => type === "assistant").length, 2);
    assert(types.includes("system"), `a stop_hook_summary is recorded: ${types.join(",")}`);
    // One linear chain: every record's parent is the one before it.
    const chained = records.filter((r) => typeof r.uuid === "string");
    chained.forEach((record, i) => {
      assertEquals(record.parentUuid, i === 0 ? null : chained[i - 1]!.uuid, `record ${i}`);
    });
    const feedback = JSON.stringify(records);
    assertStringIncludes(feedback, `Check your answer once more: ${REPLY_TEXT}`);
    await agent.close();
  });
});
