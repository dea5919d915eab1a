/**
 * A new session's first turn without the fixed prompt, on the real llama path: the first
 * session evaluates its whole prompt and keeps the state of the shared part (the system prompt's
 * first part and the tools) and of its project's part; the next session of the project evaluates
 * only the user's words, one of another project its place line and the user's words.
 * The state is never used for another model, tool set or prompt, and a corrupt file is said,
 * ignored and replaced. (Across processes: tests/e2e/prefix_state_stdio_test.ts.)
 */
import { createToolKit } from "../../src/agent/tools/tool_kits.ts";
import { systemPromptItem } from "../../src/acp/turn/system_prompt.ts";
import { toLlamaFunctions } from "../../src/model/llama/llama_functions.ts";
import { toLlamaHistory } from "../../src/model/llama/llama_history.ts";
import {
  type LlamaRuntime,
  openLlamaRuntime,
  preloadLlama,
} from "../../src/model/llama/llama_model.ts";
import { placeToolsAfterSharedPrompt } from "../../src/model/llama/llama_prefix_state.ts";
import type {
  ConversationItem,
  GenerateResult,
  ModelSession,
  ToolDefinition,
} from "../../src/model/model.ts";
import { compatProfile, type CompatProfileId } from "../../src/profile/compat_profile.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { REPLY_TEXT, writeReplyModel } from "../helpers/test_models.ts";
import { testOnParts } from "../helpers/test_parts.ts";

await preloadLlama();

const USER_TEXT = "Say hello.";

function conversation(cwd: string, profile: CompatProfileId = "llama"): ConversationItem[] {
  return [
    systemPromptItem({ cwd, additionalDirectories: [] }, compatProfile(profile)),
    { role: "user", text: USER_TEXT },
  ];
}

function tools(profile: CompatProfileId = "llama"): ToolDefinition[] {
  return createToolKit(compatProfile(profile)).definitions();
}

async function firstTurn(
  session: ModelSession,
  items: readonly ConversationItem[],
  offered: readonly ToolDefinition[],
): Promise<GenerateResult> {
  try {
    return await session.generate({
      conversation: items,
      tools: offered,
      signal: new AbortController().signal,
      onTextChunk: () => {},
      onThoughtChunk: () => {},
    });
  } finally {
    await session.dispose();
  }
}

/**
 * The most a first turn may evaluate once its fixed prompt is kept: its own words (for a new
 * project `cwd`, its place line; the user's text) and the chat template's frame around them.
 */
function ownTokens(session: ModelSession, newProject?: string): number {
  const place = newProject === undefined
    ? ""
    : `\n\nYou work in ${newProject}. Relative paths start there.`;
  return session.countTextTokens!(place + USER_TEXT) + 16;
}

interface Place {
  readonly dir: string;
  readonly states: string;
  readonly logs: string[];
  readonly runtime: LlamaRuntime;
}

async function withPlace(fn: (place: Place) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "llama_prefix_state_test_" });
  const logs: string[] = [];
  const runtime = await openLlamaRuntime({ gpu: "off", log: (line) => logs.push(line) });
  try {
    await fn({ dir, states: `${dir}/prefix-states`, logs, runtime });
  } finally {
    await runtime.dispose();
    await Deno.remove(dir, { recursive: true });
  }
}

/** The entries (one directory per kept prefix) in `dir`. */
async function entries(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.endsWith(".prefix")) names.push(`${dir}/${entry.name}`);
  }
  return names;
}

Deno.test("a new session's first turn evaluates only its own tokens once the fixed prompt is kept", async () => {
  await withPlace(async ({ dir, states, runtime, logs }) => {
    const model = await runtime.loadModel({
      modelPath: await writeReplyModel(dir),
      contextSize: 8192,
      threads: 1,
      prefixStateDir: states,
    });
    try {
      const first = await model.openSession();
      const prompt = await first.countPromptTokens!(conversation("/work/app"), tools());
      const evaluatedFirst = await firstTurn(first, conversation("/work/app"), tools());
      assertEquals([evaluatedFirst.text, evaluatedFirst.tokens.prompt], [REPLY_TEXT, prompt]);
      assertEquals(evaluatedFirst.tokens.evaluated, prompt, "the first session evaluates it all");
      assertEquals((await entries(states)).length, 2, "the shared part, and the project's");

      // The same project: only the user's words are new. Another: its place line too.
      const cases: [cwd: string, newProject: boolean][] = [
        ["/work/app", false],
        ["/home/someone/other", true],
      ];
      for (const [cwd, newProject] of cases) {
        const session = await model.openSession();
        const limit = ownTokens(session, newProject ? cwd : undefined);
        const result = await firstTurn(session, conversation(cwd), tools());
        assertEquals(result.text, REPLY_TEXT);
        assert(
          result.tokens.evaluated <= limit && result.tokens.evaluated < prompt / 10,
          `${cwd}: evaluated ${result.tokens.evaluated} of ${result.tokens.prompt} (own ${limit})`,
        );
      }
      assertEquals((await entries(states)).length, 3, "one shared, one per project");
      assertEquals(logs.filter((line) => line.includes("prompt state")), []);
    } finally {
      await model.dispose();
    }

    // A model loaded again (as the next process loads it) finds the file.
    const again = await runtime.loadModel({
      modelPath: `${dir}/reply.gguf`,
      contextSize: 8192,
      threads: 1,
      prefixStateDir: states,
    });
    try {
      const session = await again.openSession();
      const limit = ownTokens(session);
      const result = await firstTurn(session, conversation("/work/app"), tools());
      assert(result.tokens.evaluated <= limit, `evaluated ${result.tokens.evaluated}`);
    } finally {
      await again.dispose();
    }
  });
});

Deno.test("a kept state is not used for another tool set, profile, model or context size", async () => {
  await withPlace(async ({ dir, states, runtime }) => {
    const load = async (modelPath: string, contextSize = 8192) =>
      await runtime.loadModel({ modelPath, contextSize, threads: 1, prefixStateDir: states });
    const path = await writeReplyModel(dir);
    const model = await load(path);
    try {
      await firstTurn(await model.openSession(), conversation("/p"), tools());
      const others: [string, ConversationItem[], ToolDefinition[]][] = [
        ["one tool fewer", conversation("/p"), tools().slice(1)],
        ["the claude profile", conversation("/p", "claude"), tools("claude")],
      ];
      for (const [name, items, offered] of others) {
        const result = await firstTurn(await model.openSession(), items, offered);
        assertEquals(result.tokens.evaluated, result.tokens.prompt, name);
      }
    } finally {
      await model.dispose();
    }
    // The same file copied elsewhere is another model as far as the cache knows; so is the
    // same model in a context of another size.
    await Deno.mkdir(`${dir}/copy`);
    await Deno.copyFile(path, `${dir}/copy/reply.gguf`);
    for (
      const [name, other] of [
        ["another model file", await load(`${dir}/copy/reply.gguf`)],
        ["another context size", await load(path, 6144)],
      ] as const
    ) {
      try {
        const result = await firstTurn(await other.openSession(), conversation("/p"), tools());
        assertEquals(result.tokens.evaluated, result.tokens.prompt, name);
      } finally {
        await other.dispose();
      }
    }
    assertEquals((await entries(states)).length, 10, "each kept its own two");
  });
});

Deno.test("a corrupt state file is said, ignored and replaced, and the answer is the same", async () => {
  await withPlace(async ({ dir, states, runtime, logs }) => {
    const model = await runtime.loadModel({
      modelPath: await writeReplyModel(dir),
      contextSize: 8192,
      threads: 1,
      prefixStateDir: states,
    });
    try {
      await firstTurn(await model.openSession(), conversation("/p"), tools());
      // Every kept state's last bytes garbled, its header left as it was.
      const kept = await entries(states);
      for (const entry of kept) {
        const bytes = await Deno.readFile(`${entry}/state`);
        const garbled = bytes.map((byte, at) => at >= bytes.byteLength - 100 ? byte ^ 0xff : byte);
        await Deno.writeFile(`${entry}/state`, garbled);
      }
      const result = await firstTurn(await model.openSession(), conversation("/p"), tools());
      assertEquals([result.text, result.tokens.evaluated], [REPLY_TEXT, result.tokens.prompt]);
      for (const entry of kept) {
        assertStringIncludes(logs.join("\n"), `The cached prompt state "${entry}" is not usable`);
      }
      // Replaced: the next session starts from it.
      const next = await model.openSession();
      const limit = ownTokens(next);
      const after = await firstTurn(next, conversation("/p"), tools());
      assert(after.tokens.evaluated <= limit, `evaluated ${after.tokens.evaluated}`);
    } finally {
      await model.dispose();
    }
  });
});

Deno.test("without a place to keep states, every first turn evaluates its whole prompt", async () => {
  await withPlace(async ({ dir, runtime }) => {
    const model = await runtime.loadModel({
      modelPath: await writeReplyModel(dir),
      contextSize: 8192,
      threads: 1,
    });
    try {
      for (let n = 0; n < 2; n++) {
        const result = await firstTurn(await model.openSession(), conversation("/p"), tools());
        assertEquals(result.tokens.evaluated, result.tokens.prompt);
      }
    } finally {
      await model.dispose();
    }
  });
});

testOnParts(
  "on SmolLM2 a new session's first turn evaluates only its own tokens and answers as the first did",
  async (parts) => {
    await withPlace(async ({ states, runtime }) => {
      const model = await runtime.loadModel({
        modelPath: parts.instructModel,
        contextSize: 4096,
        threads: 2,
        prefixStateDir: states,
      });
      try {
        const answer = async (cwd: string) => {
          const session = await model.openSession();
          const limit = ownTokens(session);
          const result = await session.generate({
            conversation: conversation(cwd),
            tools: tools(),
            maxTokens: 12,
            signal: new AbortController().signal,
            onTextChunk: () => {},
            onThoughtChunk: () => {},
          }).finally(() => session.dispose());
          return { result, limit };
        };
        const first = await answer("/work/app");
        assertEquals(first.result.tokens.evaluated, first.result.tokens.prompt);
        const second = await answer("/work/app");
        assert(
          second.result.tokens.evaluated <= second.limit,
          `evaluated ${second.result.tokens.evaluated} of ${second.result.tokens.prompt}`,
        );
        assertEquals(second.result.text, first.result.text);
      } finally {
        await model.dispose();
      }
    });
  },
);

Deno.test("the tools go right after the system prompt's shared part; without tools the text is as one message", async () => {
  const { ChatMLChatWrapper, QwenChatWrapper } = await import("node-llama-cpp");
  const item = conversation("/work/app")[0]!;
  assert(item.role === "system");
  const shared = item.text.slice(0, item.sharedLength);
  const functions = toLlamaFunctions(tools());
  for (const wrapper of [new ChatMLChatWrapper(), new QwenChatWrapper()]) {
    placeToolsAfterSharedPrompt(wrapper);
    const render = (withTools: boolean) =>
      wrapper.generateContextState({
        chatHistory: toLlamaHistory(conversation("/work/app")),
        availableFunctions: withTools ? functions : undefined,
      }).contextText.toString();
    const text = render(true);
    const [atShared, atTools, atPlace] = [
      text.indexOf(shared),
      text.indexOf("Search file contents for a regular expression"),
      text.indexOf("You work in /work/app."),
    ];
    assert(0 <= atShared && atShared < atTools && atTools < atPlace, wrapper.wrapperName);
    // Without tools, the split prompt renders as the one message it was.
    const whole = wrapper.generateContextState({
      chatHistory: toLlamaHistory([{ role: "system", text: item.text }, {
        role: "user",
        text: USER_TEXT,
      }]),
    }).contextText.toString();
    assertEquals(render(false), whole, wrapper.wrapperName);
  }
});
