import {
  assert,
  assertEquals,
  assertRejectsWith,
  assertStringIncludes,
} from "../helpers/assert.ts";
import { loadScriptedModel, scriptedModel } from "../../src/model/scripted/scripted_model.ts";
import type { ConversationItem, GenerateRequest } from "../../src/model/model.ts";
import { AgentError } from "../../src/error.ts";
import { ContextFullError } from "../../src/model/context_full_error.ts";
import { estimatePromptTokens, estimateTextTokens } from "../../src/model/token_estimate.ts";

function request(
  overrides: Partial<GenerateRequest> = {},
): GenerateRequest & { chunks: string[]; thoughts: string[] } {
  const chunks: string[] = [];
  const thoughts: string[] = [];
  return {
    conversation: [{ role: "user", text: "hello there" }],
    tools: [],
    signal: new AbortController().signal,
    onTextChunk: (t) => chunks.push(t),
    onThoughtChunk: (t) => thoughts.push(t),
    ...overrides,
    chunks,
    thoughts,
  };
}

Deno.test("a scripted model plays its turns in order, streaming text and thoughts in pieces", async () => {
  const model = scriptedModel({
    turns: [
      {
        thought: "I should read it",
        toolCalls: [{ name: "fs_read", input: { file_path: "a.txt" } }],
      },
      { text: "The file says hi." },
    ],
  });
  const session = await model.openSession();
  const first = request();
  const one = await session.generate(first);
  assertEquals(one.stop, "tool_calls");
  assertEquals(one.toolCalls, [{ name: "fs_read", input: { file_path: "a.txt" } }]);
  assertEquals(first.thoughts.join(""), "I should read it");
  assert(first.thoughts.length > 1, "thoughts stream in pieces");
  const second = request();
  const two = await session.generate(second);
  assertEquals([two.stop, two.text, second.chunks.join("")], [
    "end",
    "The file says hi.",
    "The file says hi.",
  ]);
});

Deno.test("each scripted session starts at the first turn", async () => {
  const model = scriptedModel({ turns: [{ text: "one" }] });
  const a = await model.openSession();
  const b = await model.openSession();
  assertEquals((await a.generate(request())).text, "one");
  assertEquals((await b.generate(request())).text, "one");
});

Deno.test("a scripted model counts its prompt with the estimate, and a repeated prefix as cached", async () => {
  const model = scriptedModel({ turns: [{ text: "fine thanks" }, { text: "bye" }] });
  const session = await model.openSession();
  const first = await session.generate(request());
  const firstPrompt = estimatePromptTokens(request().conversation, []);
  assertEquals(first.tokens, { prompt: firstPrompt, evaluated: firstPrompt, generated: 2 });
  const conversation: ConversationItem[] = [
    { role: "user", text: "hello there" },
    { role: "assistant", segments: [{ type: "text", text: "fine thanks" }] },
    { role: "user", text: "and you" },
  ];
  assertEquals(
    await session.countPromptTokens!(conversation, []),
    estimatePromptTokens(conversation, []),
  );
  const second = await session.generate(request({ conversation }));
  assertEquals(second.tokens.prompt, estimatePromptTokens(conversation, []));
  // What the first turn left in the context (its prompt and its answer) is not evaluated again.
  assertEquals(
    second.tokens.evaluated,
    second.tokens.prompt - firstPrompt - estimateTextTokens("fine thanks"),
  );
});

Deno.test("a script's contextSize refuses a longer prompt as llama-server does, with both numbers, and keeps the turn", async () => {
  const model = scriptedModel({ contextSize: 40, turns: [{ text: "short again" }] });
  const session = await model.openSession();
  assertEquals([session.contextSize, session.contextSource], [40, "model"]);
  const long = request({ conversation: [{ role: "user", text: "word ".repeat(100) }] });
  const error = await assertRejectsWith(() => session.generate(long), ContextFullError);
  const prompt = estimatePromptTokens(long.conversation, []);
  assertEquals([error.code, error.overflow], ["CONTEXT_FULL", {
    promptTokens: prompt,
    contextSize: 40,
  }]);
  assertStringIncludes(error.message, `(${prompt} tokens with the tool descriptions)`);
  assertEquals(long.chunks, []);
  // The turn was not played: the shorter request after it gets it.
  assertEquals((await session.generate(request())).text, "short again");
});

Deno.test("the tools' definitions count toward a script's contextSize", async () => {
  const tool = { name: "shell", description: "Run a command. ".repeat(20), inputSchema: {} };
  const fits = estimatePromptTokens(request().conversation, []);
  const session = await scriptedModel({ contextSize: fits, turns: [{ text: "ok" }] }).openSession();
  await assertRejectsWith(() => session.generate(request({ tools: [tool] })), ContextFullError);
  assertEquals((await session.generate(request())).text, "ok");
});

Deno.test("a script without contextSize has no context and refuses nothing", async () => {
  const session = await scriptedModel({ turns: [{ text: "fine" }] }).openSession();
  assertEquals([session.contextSize, session.contextSource], [undefined, undefined]);
  const long = request({ conversation: [{ role: "user", text: "word ".repeat(100_000) }] });
  assertEquals((await session.generate(long)).text, "fine");
});

Deno.test("a script file may declare contextSize, and a bad one names where it is", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/small.json`, '{"contextSize": 64, "turns": []}');
    assertEquals(
      (await (await loadScriptedModel(`${dir}/small.json`)).openSession()).contextSize,
      64,
    );
    await Deno.writeTextFile(`${dir}/bad.json`, '{"contextSize": 0, "turns": []}');
    const error = await assertRejectsWith(() => loadScriptedModel(`${dir}/bad.json`), AgentError);
    assertStringIncludes(error.message, "at /contextSize");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an aborted scripted generation stops streaming and reports cancelled without tool calls", async () => {
  const controller = new AbortController();
  const model = scriptedModel({
    turns: [{ text: "a b c d e", toolCalls: [{ name: "shell", input: {} }] }],
  });
  const session = await model.openSession();
  const chunks: string[] = [];
  const result = await session.generate(request({
    signal: controller.signal,
    onTextChunk: (t) => {
      chunks.push(t);
      if (chunks.length === 2) controller.abort();
    },
  }));
  assertEquals([result.stop, result.text, result.toolCalls.length], ["cancelled", "a b ", 0]);
});

Deno.test("running out of scripted turns is an error that says what to add", async () => {
  const session = await scriptedModel({ turns: [] }).openSession();
  const error = await assertRejectsWith(() => session.generate(request()), AgentError);
  assertStringIncludes(error.message, 'has no turn 1: add one to "turns"');
});

Deno.test("a bad script file names the file and what is wrong", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/bad.json`, '{"turns":[{"txt":"x"}]}');
    const error = await assertRejectsWith(() => loadScriptedModel(`${dir}/bad.json`), AgentError);
    assertStringIncludes(error.message, `Invalid model script "${dir}/bad.json"`);
    assertStringIncludes(error.message, "/turns/0");
    const missing = await assertRejectsWith(
      () => loadScriptedModel(`${dir}/none.json`),
      AgentError,
    );
    assertStringIncludes(missing.message, `Cannot read model script "${dir}/none.json"`);
    await Deno.writeTextFile(`${dir}/garbage.json`, "{");
    const garbage = await assertRejectsWith(
      () => loadScriptedModel(`${dir}/garbage.json`),
      AgentError,
    );
    assertStringIncludes(garbage.message, "Cannot parse model script");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a script file that never ends is refused, not read", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.symlink("/dev/zero", `${dir}/zero.json`);
    const error = await assertRejectsWith(() => loadScriptedModel(`${dir}/zero.json`), AgentError);
    assertStringIncludes(
      error.message,
      `Cannot read model script "${dir}/zero.json": it is a character device`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
