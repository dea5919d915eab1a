import {
  assert,
  assertEquals,
  assertRejectsWith,
  assertStringIncludes,
} from "../helpers/assert.ts";
import { loadScriptedModel, scriptedModel } from "../../src/model/scripted_model.ts";
import type { GenerateRequest } from "../../src/model/model.ts";
import { AgentError } from "../../src/error.ts";

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

Deno.test("a scripted model counts a repeated prefix as cached", async () => {
  const model = scriptedModel({ turns: [{ text: "fine thanks" }, { text: "bye" }] });
  const session = await model.openSession();
  const first = await session.generate(request());
  assertEquals(first.tokens, { prompt: 2, evaluated: 2, generated: 2 });
  const second = await session.generate(request({
    conversation: [
      { role: "user", text: "hello there" },
      { role: "assistant", segments: [{ type: "text", text: "fine thanks" }] },
      { role: "user", text: "and you" },
    ],
  }));
  assertEquals(second.tokens.evaluated, 2);
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
