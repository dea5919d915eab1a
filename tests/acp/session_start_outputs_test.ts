/**
 * What SessionStart hooks hand the rest of the session (hooks.md §12.6, §12.7):
 * `initialUserMessage` is the first user message the model reads, right before the client's
 * prompt, once, and a load brings it back; `CLAUDE_ENV_FILE` is a fresh file per hook whose
 * variables every later shell tool call gets (locally, in a client terminal, and as the claude
 * profile's Bash), while later hooks do not.
 */
import { dirname } from "node:path";
import type { ConversationItem, GenerateRequest } from "../../src/model/model.ts";
import { claudeTranscriptPathFor } from "../../src/agent/transcript/claude_transcript_path.ts";
import { transcriptPathFor } from "../../src/agent/transcript/transcript_path.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { callTool, reply } from "./fake_models.ts";
import { recordingModel, text } from "./claude_session_fixture.ts";
import { printing, readLog, settings } from "./hook_fixtures.ts";
import { withInMemoryAgent } from "./in_memory_agent.ts";

/** The user messages of one model call, in order. */
function userTexts(request: GenerateRequest): string[] {
  return request.conversation.flatMap((item) => item.role === "user" ? [item.text] : []);
}

/** The result the model was given for the call of one request's last assistant item. */
function toolResult(request: GenerateRequest): string {
  const assistant = request.conversation.findLast((item): item is Extract<
    ConversationItem,
    { role: "assistant" }
  > => item.role === "assistant");
  const call = assistant?.segments.find((s) => s.type === "tool_call");
  assert(call?.type === "tool_call", "the model was given a tool result");
  return call.result;
}

const initial = (message: string) =>
  printing({ hookSpecificOutput: { hookEventName: "SessionStart", initialUserMessage: message } });

Deno.test("initialUserMessage is the model's first user message, before the prompt, and only once", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        SessionStart: [[null, initial("Read TODO.md first.")], [null, initial("Then say hi.")]],
      }),
    },
    model: recordingModel([reply("ok"), reply("ok again")], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
    await t.agent.request("session/prompt", { sessionId, prompt: text("and now?") });
    // Several hooks: their messages joined with "\n" in chain order, as one message.
    const message = "Read TODO.md first.\nThen say hi.";
    const first = requests[0]!.conversation;
    assertEquals(first.map((item) => item.role), ["system", "user", "user"]);
    assertEquals(userTexts(requests[0]!), [message, "hi"]);
    assertEquals(userTexts(requests[1]!), [message, "hi", "and now?"]);
    const shownToClient = t.updates.filter((u) => u.update.sessionUpdate === "user_message_chunk");
    assertEquals(shownToClient, [], "the client never sent it, and is not shown it as its own");
  });
});

Deno.test("initialUserMessage is in the transcript: a load gives the model the same conversation", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({ SessionStart: [[null, initial("Read TODO.md first.")]] }),
    },
    model: recordingModel([reply("ok"), reply("ok again")], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
    await t.agent.request("session/close", { sessionId });
    await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] });
    await t.agent.request("session/prompt", { sessionId, prompt: text("and now?") });
    assertEquals(userTexts(requests[1]!), ["Read TODO.md first.", "hi", "and now?"]);
    const records = await readLog(transcriptPathFor(sessionId, t.env));
    assertEquals(
      records.filter((r) => r.type === "hook_feedback" || r.type === "prompt").map((r) => r.type),
      ["hook_feedback", "prompt", "prompt"],
    );
    const replayed = t.updates.filter((u) => u.update.sessionUpdate === "user_message_chunk");
    assertEquals(replayed.map((u) => u.update), [
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "hi" } },
    ]);
  });
});

Deno.test("claude profile: initialUserMessage is a user record of the Claude-format transcript, before the prompt", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: {
      ".claude/settings.json": settings({ SessionStart: [[null, initial("Read TODO.md first.")]] }),
    },
    script: { turns: [{ text: "ok" }] },
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
    const records = await readLog(claudeTranscriptPathFor(t.home, t.cwd, sessionId));
    const users = records.filter((r) => r.type === "user").map((r) => r.message);
    assertEquals(users, [
      { role: "user", content: "Read TODO.md first." },
      { role: "user", content: "hi" },
    ]);
  });
});

/** Records the hook's CLAUDE_ENV_FILE and whether it was empty, then writes `lines` to it. */
function envWriter(tag: string, lines: string): string {
  return `f="$CLAUDE_ENV_FILE"; s=empty; [ -s "$f" ] && s=nonempty; ` +
    `printf '%s %s %s\\n' ${tag} "$f" $s >> "$CLAUDE_PROJECT_DIR/env_files.log"; ` +
    `printf '${lines}' >> "$f"`;
}

Deno.test("each SessionStart hook gets its own fresh CLAUDE_ENV_FILE beside raw.jsonl; other hooks get none", async () => {
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        SessionStart: [[null, envWriter("a", "export A=1\\n")], [
          null,
          envWriter("b", "export B=2\\n"),
        ]],
        UserPromptSubmit: [[
          null,
          'printf "%s" "${CLAUDE_ENV_FILE-none}" > "$CLAUDE_PROJECT_DIR/ups_env.txt"',
        ]],
      }),
    },
    script: { turns: [{ text: "ok" }] },
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
    const dir = `${dirname(transcriptPathFor(sessionId, t.env))}/session-env`;
    const logged = (await Deno.readTextFile(`${t.cwd}/env_files.log`)).trim().split("\n").sort();
    assertEquals(logged, [
      `a ${dir}/sessionstart-hook-0.sh empty`,
      `b ${dir}/sessionstart-hook-1.sh empty`,
    ]);
    assertEquals((await Deno.stat(dir)).mode! & 0o777, 0o700);
    assertEquals((await Deno.stat(`${dir}/sessionstart-hook-0.sh`)).mode! & 0o777, 0o600);
    assertEquals(await Deno.readTextFile(`${dir}/sessionstart-hook-1.sh`), "export B=2\n");
    assertEquals(await Deno.readTextFile(`${t.cwd}/ups_env.txt`), "none");
  });
});

Deno.test("export FOO=bar in CLAUDE_ENV_FILE reaches a later shell call, not a later PreToolUse hook", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        SessionStart: [[null, `echo 'export FOO=bar' >> "$CLAUDE_ENV_FILE"`]],
        PreToolUse: [["shell", `printf '%s' "\${FOO-unset}" > "$CLAUDE_PROJECT_DIR/pre_foo.txt"`]],
      }),
    },
    model: recordingModel([callTool("shell", { command: "echo $FOO" }), reply("done")], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("show FOO") });
    assertEquals(toolResult(requests[1]!), "bar\n");
    assertEquals(await Deno.readTextFile(`${t.cwd}/pre_foo.txt`), "unset");
  });
});

Deno.test("a session closed and loaded again in the same process keeps its CLAUDE_ENV_FILE variables", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        SessionStart: [[null, `echo 'export FOO=bar' >> "$CLAUDE_ENV_FILE"`]],
      }),
    },
    // Each model session starts the script again: the loaded session's first call is the shell.
    model: recordingModel([callTool("shell", { command: "echo $FOO" }), reply("done")], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/close", { sessionId });
    // SessionStart fires once per session id per process: the load does not run it again.
    await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] });
    await t.agent.request("session/prompt", { sessionId, prompt: text("show FOO") });
    assertEquals(toolResult(requests[1]!), "bar\n");
  });
});

Deno.test("a line of CLAUDE_ENV_FILE that is no plain assignment is ignored with a log line; the rest apply", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        SessionStart: [[
          null,
          `printf 'export GOOD=1\\ntouch "$HOME/pwned"\\nexport BAD=$(id)\\n' >> "$CLAUDE_ENV_FILE"`,
        ]],
      }),
    },
    model: recordingModel([
      callTool("shell", { command: 'echo "GOOD=$GOOD BAD=${BAD-unset}"' }),
      reply("done"),
    ], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("show") });
    assertEquals(toolResult(requests[1]!), "GOOD=1 BAD=unset\n");
    const file = `${
      dirname(transcriptPathFor(sessionId, t.env))
    }/session-env/sessionstart-hook-0.sh`;
    assertEquals(t.logs.filter((line) => line.includes("CLAUDE_ENV_FILE")), [
      `Ignored line 2 of CLAUDE_ENV_FILE "${file}": ` +
      "it is not an assignment: write NAME=value or export NAME=value",
      `Ignored line 3 of CLAUDE_ENV_FILE "${file}": ` +
      "command substitution is not run: write the value itself",
    ]);
  });
});

Deno.test("in a client terminal the env-file variables go with terminal/create", async () => {
  const created: unknown[] = [];
  await withInMemoryAgent({
    clientCapabilities: { terminal: true },
    files: {
      ".claude/settings.json": settings({
        SessionStart: [[null, `echo 'export FOO=bar' >> "$CLAUDE_ENV_FILE"`]],
      }),
    },
    model: recordingModel([callTool("shell", { command: "echo $FOO" }), reply("done")]),
    clientHandlers: (client) =>
      client
        .onRequest("terminal/create", ({ params }) => {
          created.push(params.env);
          return { terminalId: "term-1" };
        })
        .onRequest("terminal/wait_for_exit", () => ({ exitCode: 0 }))
        .onRequest("terminal/output", () => ({ output: "bar\n", truncated: false }))
        .onRequest("terminal/release", () => ({})),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("show FOO") });
    assertEquals(created, [[{ name: "FOO", value: "bar" }]]);
  });
});

Deno.test("claude profile: the env-file variables reach Bash", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    profile: "claude",
    files: {
      ".claude/settings.json": settings({
        SessionStart: [[null, `echo 'export FOO=bar' >> "$CLAUDE_ENV_FILE"`]],
      }),
    },
    model: recordingModel([
      callTool("Bash", { command: 'echo "FOO=$FOO"', description: "show FOO" }),
      reply("done"),
    ], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("show FOO") });
    assertEquals(toolResult(requests[1]!), "FOO=bar");
  });
});
