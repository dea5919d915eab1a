/**
 * The Claude-format transcript in a real session of the `claude` profile (claude-compat.md §8):
 * hooks find it at `transcript_path`, written up to their own firing, so a PreToolUse hook reads
 * the call it checks and a Stop gate reads the reply it judges, as they do under Claude Code. A
 * session brought back appends to the same file; raw.jsonl stays what a load replays from, and
 * the default profile keeps pointing hooks at it.
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { GenerateRequest } from "../../src/model/model.ts";
import { claudeTranscriptPathFor } from "../../src/agent/transcript/claude_transcript_path.ts";
import { transcriptPathFor } from "../../src/agent/transcript/transcript_path.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { callTool, reply, type Step, steppedModel } from "./fake_models.ts";
import { readLog, seen } from "./hook_fixtures.ts";
import { withInMemoryAgent } from "./in_memory_agent.ts";

const text = (t: string): ContentBlock[] => [{ type: "text", text: t }];

const hook = (command: string) => ({ hooks: [{ type: "command", command }] });

/** Copies the transcript as it stands when the hook runs, and logs the payload. */
const COPY_TRANSCRIPT = `#!/bin/sh
input=$(cat)
printf '%s\\n' "$input" >> "$CLAUDE_PROJECT_DIR/pre.log"
cp "$(printf '%s' "$input" | jq -r .transcript_path)" "$CLAUDE_PROJECT_DIR/pre_copy.jsonl"
`;

/**
 * The popular loop pattern: the last assistant message's text, from the transcript, must say
 * DONE, or the turn goes on (once: `stop_hook_active` is true on the next try).
 */
const STOP_GATE = `#!/bin/bash
input=$(cat)
transcript=$(printf '%s' "$input" | jq -r '.transcript_path')
active=$(printf '%s' "$input" | jq -r '.stop_hook_active')
last=$(grep '"role":"assistant"' "$transcript" | tail -n 1 |
  jq -r '.message.content | map(select(.type == "text")) | map(.text) | join("\\n")')
printf '%s\\n' "$last" >> "$CLAUDE_PROJECT_DIR/stop_seen.log"
if [ "$active" = "false" ] && ! printf '%s' "$last" | grep -q DONE; then
  jq -n '{decision: "block", reason: "Finish the task, then say DONE"}'
fi
exit 0
`;

function project(hooks: Record<string, unknown>, scripts: Record<string, string>) {
  return {
    ".claude/settings.json": JSON.stringify({ hooks }),
    ...Object.fromEntries(Object.entries(scripts).map(([name, s]) => [`.claude/hooks/${name}`, s])),
    "notes.txt": "one\ntwo\n",
  };
}

async function records(path: string): Promise<Record<string, unknown>[]> {
  return await readLog(path);
}

/** A record's subtype, attachment type or type. */
function kind(record: Record<string, unknown>): unknown {
  const attachment = record.attachment as { type?: string } | undefined;
  return record.subtype ?? attachment?.type ?? record.type;
}

/** Each chained record hangs off the one before it: one linear chain, from null. */
function assertOneChain(all: readonly Record<string, unknown>[]): void {
  const chained = all.filter((r) => typeof r.uuid === "string");
  assert(chained.length > 0, "the transcript holds chained records");
  chained.forEach((record, i) =>
    assertEquals(record.parentUuid, i === 0 ? null : chained[i - 1]!.uuid, `record ${i}`)
  );
}

Deno.test("claude profile: a PreToolUse hook reading transcript_path finds the call it checks as a tool_use", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: project({ PreToolUse: [hook('"$CLAUDE_PROJECT_DIR"/.claude/hooks/copy.sh')] }, {
      "copy.sh": COPY_TRANSCRIPT,
    }),
    model: steppedModel([callTool("Read", { file_path: "notes.txt" }), reply("done")]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("read the notes") });
    const [payload] = await readLog(`${t.cwd}/pre.log`);
    assertEquals(payload!.transcript_path, claudeTranscriptPathFor(t.home, t.cwd, sessionId));
    const copy = await records(`${t.cwd}/pre_copy.jsonl`);
    assertEquals(copy.map((r) => r.type), ["user", "assistant"]);
    const [prompt, call] = copy as [
      { message: unknown; promptId: unknown },
      { message: { content: unknown[] } },
    ];
    assertEquals(prompt.message, { role: "user", content: "read the notes" });
    assertEquals(prompt.promptId, payload!.prompt_id);
    assertEquals(call.message.content, [
      {
        type: "tool_use",
        id: payload!.tool_use_id,
        name: "Read",
        input: { file_path: "notes.txt" },
      },
    ]);
    assertOneChain(copy);
  });
});

Deno.test("claude profile: a Stop gate reading the last assistant message from the transcript blocks once, and the turn then ends", async () => {
  const requests: GenerateRequest[] = [];
  const step = (s: Step): Step => (r) => (requests.push(r), s(r));
  await withInMemoryAgent({
    profile: "claude",
    files: project({ Stop: [hook('"$CLAUDE_PROJECT_DIR"/.claude/hooks/stop_gate.sh')] }, {
      "stop_gate.sh": STOP_GATE,
    }),
    model: steppedModel([
      step(callTool("Read", { file_path: "notes.txt" })),
      step(reply("Read the notes, still working")),
      step(reply("All DONE")),
    ]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/set_config_option", {
      sessionId,
      configId: "stop_hooks_continue",
      type: "boolean",
      value: true,
    });
    const response = await t.agent.request("session/prompt", {
      sessionId,
      prompt: text("summarise the notes"),
    });
    assertEquals(response.stopReason, "end_turn");
    // The gate read the reply of the turn it judged each time, not an earlier one.
    assertEquals(
      (await Deno.readTextFile(`${t.cwd}/stop_seen.log`)).trimEnd().split("\n"),
      ["Read the notes, still working", "All DONE"],
    );
    assertEquals(requests.length, 3, "blocked once, the model answered once more");
    assertStringIncludes(seen(requests[2]!), "Finish the task, then say DONE");

    // Closed, the transcript is complete (the turn's last records are written after its hooks).
    await t.agent.request("session/close", { sessionId });
    const all = await records(claudeTranscriptPathFor(t.home, t.cwd, sessionId));
    // The gate's own record each time (its JSON block, then its silent success) before the summary.
    assertEquals(all.map(kind), [
      "user",
      "assistant",
      "user",
      "assistant",
      "hook_blocking_error",
      "stop_hook_summary",
      "user",
      "assistant",
      "hook_success",
      "stop_hook_summary",
      "last-prompt",
    ]);
    assertOneChain(all);
    const [, toolUse, toolResult] = all as { uuid: string; sourceToolAssistantUUID?: string }[];
    assertEquals(toolResult!.sourceToolAssistantUUID, toolUse!.uuid);
    assertEquals(all[5]!.hookErrors, ["Finish the task, then say DONE"]);
    assertEquals(all[9]!.hookErrors, []);
  });
});

/** Copies the transcript as it stands when the Stop hooks run. */
const COPY_AT_STOP = `#!/bin/sh
cp "$(jq -r .transcript_path)" "$CLAUDE_PROJECT_DIR/stop_copy.jsonl"
`;

Deno.test("claude profile: a Stop hook finds the records of every hook before it, each written as its firing ended", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: project({
      PreToolUse: [hook("printf '%s' '{\"systemMessage\":\"checked\"}'")],
      PostToolUse: [hook("echo 'lint failed' >&2; exit 2")],
      Stop: [hook('"$CLAUDE_PROJECT_DIR"/.claude/hooks/copy_at_stop.sh')],
    }, { "copy_at_stop.sh": COPY_AT_STOP }),
    model: steppedModel([callTool("Read", { file_path: "notes.txt" }), reply("done")]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("read the notes") });
    const copy = await records(`${t.cwd}/stop_copy.jsonl`);
    assertEquals(copy.map(kind), [
      "user",
      "assistant",
      "hook_success",
      "hook_system_message",
      "user",
      "hook_blocking_error",
      "assistant",
    ]);
    const toolUseId = (copy[1]!.message as { content: { id: string }[] }).content[0]!.id;
    assertEquals(copy[5]!.attachment, {
      type: "hook_blocking_error",
      hookName: "PostToolUse:Read",
      toolUseID: toolUseId,
      hookEvent: "PostToolUse",
      blockingError: {
        blockingError: "[echo 'lint failed' >&2; exit 2]: lint failed\n",
        command: "echo 'lint failed' >&2; exit 2",
      },
    });
    assertEquals(copy[3]!.attachment, {
      type: "hook_system_message",
      content: "checked",
      hookName: "PreToolUse:Read",
      toolUseID: toolUseId,
      hookEvent: "PreToolUse",
    });
    assertOneChain(copy);
  });
});

Deno.test("claude profile: a deferred call leaves hook_deferred_tool and no tool result", async () => {
  const defer = {
    hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "defer" },
  };
  await withInMemoryAgent({
    profile: "claude",
    files: project({
      PreToolUse: [
        hook(`cat > "$CLAUDE_PROJECT_DIR/pre.log"; printf '%s' '${JSON.stringify(defer)}'`),
      ],
    }, {}),
    model: steppedModel([callTool("Read", { file_path: "notes.txt" }), reply("never")]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("read the notes") });
    await t.agent.request("session/close", { sessionId });
    const all = await records(claudeTranscriptPathFor(t.home, t.cwd, sessionId));
    assertEquals(all.map(kind), [
      "user",
      "assistant",
      "hook_success",
      "hook_deferred_tool",
      "last-prompt",
    ]);
    const call = (all[1]!.message as { content: { id: string; input: unknown }[] }).content[0]!;
    const [sent] = await readLog(`${t.cwd}/pre.log`);
    assertEquals(all[3]!.attachment, {
      type: "hook_deferred_tool",
      toolUseID: call.id,
      toolName: "Read",
      toolInput: { file_path: `${t.cwd}/notes.txt` },
      hookName: "PreToolUse:Read",
      hookEvent: "PreToolUse",
      permissionMode: sent!.permission_mode,
    });
  });
});

Deno.test("claude profile: a session loaded again appends to the same transcript, its chain going on", async () => {
  await withInMemoryAgent({
    profile: "claude",
    model: steppedModel([reply("hello")]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("first") });
    await t.agent.request("session/close", { sessionId });
    t.updates.length = 0;
    await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] });
    // The load replays raw.jsonl, as in every profile.
    assertEquals(t.text(sessionId), "hello");
    await t.agent.request("session/prompt", { sessionId, prompt: text("second") });
    await t.agent.request("session/close", { sessionId });
    const all = await records(claudeTranscriptPathFor(t.home, t.cwd, sessionId));
    assertEquals(all.map((r) => r.type), [
      "user",
      "assistant",
      "last-prompt",
      "user",
      "assistant",
      "last-prompt",
    ]);
    assertOneChain(all);
  });
});

/** Copies the transcript as it stands, then adds context to the prompt. */
const PROMPT_CONTEXT = `#!/bin/sh
input=$(cat)
cp "$(printf '%s' "$input" | jq -r .transcript_path)" "$CLAUDE_PROJECT_DIR/ups_copy.jsonl"
printf '%s' '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ON BRANCH main"}}'
`;

Deno.test("claude profile: a UserPromptSubmit hook finds the turns before its prompt, and its context follows the typed prompt", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: project({ UserPromptSubmit: [hook('"$CLAUDE_PROJECT_DIR"/.claude/hooks/ctx.sh')] }, {
      "ctx.sh": PROMPT_CONTEXT,
    }),
    model: steppedModel([reply("one"), reply("two")]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("first") });
    assertEquals(await Deno.readTextFile(`${t.cwd}/ups_copy.jsonl`), "");
    await t.agent.request("session/prompt", { sessionId, prompt: text("second") });
    const before = await records(`${t.cwd}/ups_copy.jsonl`);
    // The first prompt, the hook's own record (its JSON stdout) and its context, the reply.
    // No hook_success: the hook printed JSON, which leaves nothing for the model to read.
    assertEquals(before.map(kind), ["user", "hook_additional_context", "assistant", "last-prompt"]);
    await t.agent.request("session/close", { sessionId });
    const all = await records(claudeTranscriptPathFor(t.home, t.cwd, sessionId));
    const [prompt, context] = all.slice(before.length) as {
      message?: unknown;
      attachment?: Record<string, unknown>;
    }[];
    assertEquals(prompt!.message, { role: "user", content: "second" });
    assertEquals(context!.attachment, {
      type: "hook_additional_context",
      content: ["ON BRANCH main"],
      hookName: "UserPromptSubmit",
      toolUseID: context!.attachment!.toolUseID,
      hookEvent: "UserPromptSubmit",
    });
    assertOneChain(all);
  });
});

Deno.test("llama profile: transcript_path is still raw.jsonl, and no Claude-format transcript is written", async () => {
  await withInMemoryAgent({
    files: project({ PreToolUse: [hook('"$CLAUDE_PROJECT_DIR"/.claude/hooks/copy.sh')] }, {
      "copy.sh": COPY_TRANSCRIPT,
    }),
    model: steppedModel([callTool("fs_read", { file_path: "notes.txt" }), reply("done")]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("read the notes") });
    const [payload] = await readLog(`${t.cwd}/pre.log`);
    assertEquals(payload!.transcript_path, transcriptPathFor(sessionId, t.env));
    const made = await Deno.stat(`${t.home}/.claude`).then(() => true, () => false);
    assertEquals(made, false);
  });
});
