/**
 * Tool calls repaired in a turn (tool_call_repair.ts), in process: a call written as text runs,
 * hooks see the tool's real name and parsed input in both profiles, the model reads its call as a
 * call (also after a load), and the user and the transcript are told; arguments sent as JSON text
 * are decoded, JSON that is not JSON is called so, and an unknown tool's error lists the tools.
 */
import type { GenerateRequest, GenerateResult } from "../../src/model/model.ts";
import { repairedCall } from "../../src/acp/turn/tool_call_repair.ts";
import { conversationFromTranscript } from "../../src/agent/transcript/transcript_reader.ts";
import { TranscriptRecord } from "../../src/agent/transcript/transcript_record.ts";
import { transcriptPathFor } from "../../src/agent/transcript/transcript_path.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { lastToolCallUpdate, oneCall, recordingModel, text } from "./claude_session_fixture.ts";
import { reply, type Step } from "./fake_models.ts";
import { logging, readLog, settings } from "./hook_fixtures.ts";
import { type InMemoryAgent, noticesOf, withInMemoryAgent } from "./in_memory_agent.ts";

/** A reply that streams `answer` in small pieces, as a model does, and makes no call. */
function writes(answer: string): Step {
  return (request): GenerateResult => {
    for (let at = 0; at < answer.length; at += 7) request.onTextChunk(answer.slice(at, at + 7));
    return {
      text: answer,
      thought: "",
      toolCalls: [],
      stop: "end",
      tokens: { prompt: 1, evaluated: 1, generated: 1 },
    };
  };
}

const PRE_LOG = "pre.log";
const preToolUseLogged = {
  ".claude/settings.json": settings({ PreToolUse: [[null, logging(PRE_LOG)]] }),
};

function toolCallAnnounced(t: InMemoryAgent) {
  const update = t.updates.map((u) => u.update).find((u) => u.sessionUpdate === "tool_call");
  assert(update?.sessionUpdate === "tool_call", "a tool_call was announced");
  return update;
}

/** The assistant messages the model was given on `request`, segment by segment. */
function assistantSegments(request: GenerateRequest) {
  return request.conversation.flatMap((item) => item.role === "assistant" ? item.segments : []);
}

async function records(t: InMemoryAgent, sessionId: string): Promise<TranscriptRecord[]> {
  return (await readLog(transcriptPathFor(sessionId, t.env))).map((r) => TranscriptRecord.parse(r));
}

Deno.test("a <tool_call> written as text runs as the call; PreToolUse sees shell for bash", async () => {
  const requests: GenerateRequest[] = [];
  const answer = "I'll greet.\n<tool_call>\n" +
    '{"name": "bash", "arguments": {"command": "echo repaired"}}\n</tool_call>';
  await withInMemoryAgent({
    files: preToolUseLogged,
    model: recordingModel([writes(answer), reply("done")], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
    assertEquals(response.stopReason, "end_turn");
    const [pre, ...more] = await readLog(`${t.cwd}/${PRE_LOG}`);
    assertEquals(more, []);
    assertEquals([pre!.tool_name, pre!.tool_input], ["shell", { command: "echo repaired" }]);
    // The client saw the text; the call says the name the model wrote and how it was made.
    const announced = toolCallAnnounced(t);
    assertEquals(announced._meta, {
      tool_name: "bash",
      "llama-agent/repair": {
        emittedName: "bash",
        fromText: "tool_call_tag",
        renamed: true,
        decodedArguments: false,
        toolName: "shell",
      },
    });
    assertEquals(lastToolCallUpdate(t.updates).status, "completed");
    assertEquals(noticesOf(t.updates), [
      "The model wrote its tool call as text: it runs as a call to shell",
    ]);
    // The model reads its lead-in, then its call as a call, with the command's output.
    const [lead, call, ...rest] = assistantSegments(requests[1]!);
    assertEquals(rest, []);
    assertEquals(lead, { type: "text", text: "I'll greet." });
    assert(call?.type === "tool_call");
    assertEquals([call.name, call.input], ["shell", { command: "echo repaired" }]);
    assertStringIncludes(call.result, "repaired");
    // A load reads the same message back from the transcript, and the record says what was done.
    const saved = await records(t, sessionId);
    const loaded = conversationFromTranscript(saved);
    const loadedSegments = loaded.flatMap((item) => item.role === "assistant" ? item.segments : []);
    assertEquals(loadedSegments.slice(0, 2), [lead, call]);
    const record = saved.find((r) => r.type === "tool_call");
    assertEquals(record?.type === "tool_call" && record.repair, {
      emittedName: "bash",
      fromText: "tool_call_tag",
      renamed: true,
      decodedArguments: false,
    });
  });
});

Deno.test("in the claude profile a fenced run_terminal_cmd runs as Bash, and hooks see Bash", async () => {
  const requests: GenerateRequest[] = [];
  const answer = '```json\n{"name": "run_terminal_cmd", "arguments": ' +
    '{"command": "echo fenced", "is_background": false}}\n```';
  await withInMemoryAgent({
    profile: "claude",
    files: preToolUseLogged,
    model: recordingModel([writes(answer), reply("done")], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
    const [pre] = await readLog(`${t.cwd}/${PRE_LOG}`);
    // Claude Code's parsed input: unknown keys dropped.
    assertEquals([pre!.tool_name, pre!.tool_input], ["Bash", { command: "echo fenced" }]);
    assertEquals(toolCallAnnounced(t)._meta?.tool_name, "run_terminal_cmd");
    const segments = assistantSegments(requests[1]!);
    assertEquals(segments.map((s) => s.type), ["tool_call"]);
    assertStringIncludes(segments[0]?.type === "tool_call" ? segments[0].result : "", "fenced");
  });
});

Deno.test("a PreToolUse guard on Bash holds for a call written as bash", async () => {
  const deny = JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: "no shell",
    },
  });
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    profile: "claude",
    files: { ".claude/settings.json": settings({ PreToolUse: [["Bash", `echo '${deny}'`]] }) },
    model: oneCall("bash", { command: "touch marker" }, requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
    assertEquals(lastToolCallUpdate(t.updates).status, "failed");
    const [call] = assistantSegments(requests[1]!);
    assertStringIncludes(call?.type === "tool_call" ? call.result : "", "no shell");
    assertEquals(await Deno.stat(`${t.cwd}/marker`).then(() => true, () => false), false);
  });
});

Deno.test("arguments sent as a JSON string are decoded before hooks see them", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: preToolUseLogged,
    model: oneCall("Bash", '{"command": "echo decoded"}'),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
    const [pre] = await readLog(`${t.cwd}/${PRE_LOG}`);
    assertEquals(pre!.tool_input, { command: "echo decoded" });
    assertEquals(toolCallAnnounced(t)._meta, {
      tool_name: "Bash",
      "llama-agent/repair": {
        emittedName: "Bash",
        renamed: false,
        decodedArguments: true,
        toolName: "Bash",
      },
    });
    assertEquals(lastToolCallUpdate(t.updates).status, "completed");
  });
});

Deno.test("arguments that are not JSON are called invalid JSON, with the position, in both profiles", async () => {
  for (const [profile, name] of [["llama", "shell"], ["claude", "Bash"]] as const) {
    const requests: GenerateRequest[] = [];
    await withInMemoryAgent({
      profile,
      model: oneCall(name, '{"command": ls}', requests),
    }, async (t) => {
      const sessionId = await t.newSession();
      await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
      const [call] = assistantSegments(requests[1]!);
      const result = call?.type === "tool_call" ? call.result : "";
      assertStringIncludes(result, "not valid JSON: Unexpected token 'l'");
      assertStringIncludes(result, "(at position 12, line 1 column 13)");
      assert(!result.includes("not a string"), result);
    });
  }
});

Deno.test("an unknown tool's error lists the tools on offer, in both profiles", async () => {
  const expected = {
    llama:
      'Unknown tool "python": the tools are shell, fs_read, fs_write, fs_edit, fs_glob, fs_grep',
    claude: "<tool_use_error>Error: No such tool available: python. The tools are Bash, Read, " +
      "Write, Edit, Glob, Grep</tool_use_error>",
  };
  for (const profile of ["llama", "claude"] as const) {
    const requests: GenerateRequest[] = [];
    await withInMemoryAgent(
      { profile, model: oneCall("python", { code: "1" }, requests) },
      async (t) => {
        const sessionId = await t.newSession();
        await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
        const [call] = assistantSegments(requests[1]!);
        assertEquals(call?.type === "tool_call" ? call.result : "", expected[profile]);
      },
    );
  }
});

Deno.test("str_replace_editor's create writes the file; its insert is refused with what to call", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    profile: "claude",
    model: recordingModel([
      writes(
        '<tool_call>{"name": "str_replace_editor", "arguments": {"command": "create", ' +
          '"path": "made.txt", "file_text": "made\\n"}}</tool_call>\n' +
          '<tool_call>{"name": "str_replace_editor", "arguments": {"command": "insert", ' +
          '"path": "made.txt", "insert_line": 1, "new_str": "x"}}</tool_call>',
      ),
      reply("done"),
    ], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
    assertEquals(await Deno.readTextFile(`${t.cwd}/made.txt`), "made\n");
    const [write, insert] = assistantSegments(requests[1]!);
    assertEquals(write?.type === "tool_call" && write.name, "Write");
    assertEquals(insert?.type === "tool_call" && insert.name, "str_replace_editor");
    assertStringIncludes(
      insert?.type === "tool_call" ? insert.result : "",
      `str_replace_editor's command "insert" has no counterpart here`,
    );
    assertEquals(noticesOf(t.updates), [
      "The model wrote 2 tool calls as text: they run as calls to Write, str_replace_editor",
    ]);
  });
});

Deno.test("prose that shows a call, or names a tool not on offer, stays the answer", async () => {
  const answers = [
    'To list files you would send:\n```json\n{"name": "bash", "arguments": {"command": "ls"}}\n' +
    "```\nbut I have not run it.",
    '||call: getSomeInfo({"someKey": "someValue"})',
  ];
  for (const answer of answers) {
    await withInMemoryAgent({ model: recordingModel([writes(answer)]) }, async (t) => {
      const sessionId = await t.newSession();
      const response = await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
      assertEquals(response.stopReason, "end_turn");
      assertEquals(t.kinds(sessionId).includes("tool_call"), false);
      assertEquals(noticesOf(t.updates), []);
    });
  }
});

Deno.test("each profile's own names and aliases pass unrepaired; the other's are mapped", () => {
  const llama = compatProfile("llama");
  const claude = compatProfile("claude");
  const call = { name: "terminal", input: { command: "ls" } };
  assertEquals(repairedCall(llama, call) === call, true, "an alias of the profile is its own");
  assertEquals(repairedCall(llama, { name: "Read", input: { file_path: "a" } }), {
    name: "fs_read",
    input: { file_path: "a" },
    repair: { emittedName: "Read", renamed: true, decodedArguments: false },
  });
  assertEquals(repairedCall(claude, { name: "read_file", input: '{"path": "a"}' }), {
    name: "Read",
    input: { file_path: "a" },
    repair: { emittedName: "read_file", renamed: true, decodedArguments: true },
  });
  assertEquals(
    repairedCall(claude, { name: "str_replace_editor", input: "{" }).repair?.refusal,
    "The arguments of str_replace_editor are not valid JSON: Expected property name or '}' in " +
      "JSON at position 1 (line 1 column 2)",
  );
});
