/**
 * What each part of the first prompt costs in tokens: the chat template's frame, the system
 * prompt, the chat wrapper's function-calling instructions, and each built-in tool's description
 * and parameters, for both profiles. Counted as the agent counts a prompt (llama_model.ts): the
 * chat wrapper's context text for the history, tokenized by a real tokenizer.
 *
 * Each tool's figure is what the prompt loses without that tool (its description alone: what it
 * loses with the description emptied); the wrapper's instructions are what is left of the
 * functions' cost. The figures do not depend on the weights, so a vocabulary-only GGUF is enough:
 * without --model the bench takes Qwen2's (the default model's tokenizer) from the llama.cpp
 * sources node-llama-cpp ships (a git bundle; needs `git`), and renders with node-llama-cpp's Qwen
 * wrapper, which it picks for the default model's template. A real model renders with the
 * wrapper node-llama-cpp resolves for it, as the agent does.
 *
 *   deno run -A bench/prompt_tokens.ts                  # one JSON line per figure, then a table
 *   deno run -A bench/prompt_tokens.ts --model m.gguf   # another model's tokenizer and template
 *   deno run -A bench/prompt_tokens.ts --wrapper chatml # the wrapper of the generated test models
 *
 * Each profile's tools are counted in both forms: full, and lean as a session whose context holds
 * at most 4096 tokens gets them (src/agent/tools/tool_kit.ts `toolFormFor`).
 */
import type { ChatWrapper, LlamaModel } from "node-llama-cpp";
import type { ToolForm } from "../src/agent/tools/tool_kit.ts";
import { createToolKit } from "../src/agent/tools/tool_kits.ts";
import { systemPrompt } from "../src/acp/turn/system_prompt.ts";
import type { ToolDefinition } from "../src/model/model.ts";
import { toLlamaFunctions } from "../src/model/llama/llama_functions.ts";
import { compatProfile, type CompatProfileId } from "../src/profile/compat_profile.ts";

const BUNDLE = "node_modules/node-llama-cpp/llama/gitRelease.bundle";
const VOCAB_IN_BUNDLE = "models/ggml-vocab-qwen2.gguf";
/** A cwd of a typical length: the system prompt names it. */
const CWD = "/home/you/projects/app";
const USER_TEXT = "hi";
/** Each profile's tools in each form: the table's columns. */
const COLUMNS = [
  ["llama", "full"],
  ["llama", "lean"],
  ["claude", "full"],
  ["claude", "lean"],
] as const satisfies readonly (readonly [CompatProfileId, ToolForm])[];
/** `qwen`: the default model's; `chatml`: the generated test models'. */
const WRAPPERS = ["qwen", "chatml"];

interface Figure {
  readonly profile: CompatProfileId;
  /** The tools' form: full, or lean as a context of at most 4096 tokens gets them. */
  readonly form: ToolForm;
  readonly part: string;
  readonly tokens: number;
}

async function main(args: readonly string[]): Promise<number> {
  const modelFlag = args.indexOf("--model");
  const modelPath = modelFlag >= 0 ? args[modelFlag + 1] : undefined;
  if (modelFlag >= 0 && modelPath === undefined) {
    console.error("--model needs a path to a GGUF file");
    return 2;
  }
  const wrapperFlag = args.indexOf("--wrapper");
  const wrapperName = wrapperFlag >= 0 ? args[wrapperFlag + 1] : undefined;
  if (wrapperName !== undefined && !WRAPPERS.includes(wrapperName)) {
    console.error(`--wrapper must be one of ${WRAPPERS.join(", ")}`);
    return 2;
  }
  const { ChatMLChatWrapper, getLlama, LlamaLogLevel, QwenChatWrapper, resolveChatWrapper } =
    await import("node-llama-cpp");
  const temp = await Deno.makeTempDir({ prefix: "prompt_tokens_" });
  try {
    const path = modelPath ?? await extractVocab(temp);
    const llama = await getLlama({
      gpu: false,
      build: "never",
      skipDownload: true,
      progressLogs: false,
      logLevel: LlamaLogLevel.error,
      logger: () => {},
    });
    try {
      const model = await llama.loadModel({ modelPath: path, vocabOnly: true });
      try {
        const wrapper = wrapperName === "chatml"
          ? new ChatMLChatWrapper()
          : wrapperName === "qwen" || modelPath === undefined
          ? new QwenChatWrapper()
          : resolveChatWrapper(model) ?? new QwenChatWrapper();
        console.error(`tokenizer: ${path}; chat wrapper: ${wrapper.wrapperName}`);
        const figures = COLUMNS.flatMap(([id, form]) => profileFigures(id, form, wrapper, model));
        for (const figure of figures) console.log(JSON.stringify(figure));
        printTable(figures);
      } finally {
        await model.dispose();
      }
    } finally {
      await llama.dispose();
    }
  } finally {
    await Deno.remove(temp, { recursive: true });
  }
  return 0;
}

function profileFigures(
  id: CompatProfileId,
  form: ToolForm,
  wrapper: ChatWrapper,
  model: LlamaModel,
): Figure[] {
  const profile = compatProfile(id);
  const tools = createToolKit(profile).definitions(form);
  const system = systemPrompt({ cwd: CWD, additionalDirectories: [] }, profile);
  const count = (systemText: string, offered: readonly ToolDefinition[]) => {
    const functions = toLlamaFunctions(offered);
    const chatHistory = [
      { type: "system" as const, text: systemText },
      { type: "user" as const, text: USER_TEXT },
      { type: "model" as const, response: [] },
    ];
    return wrapper.generateContextState({ chatHistory, availableFunctions: functions })
      .contextText.tokenize(model.tokenizer).length;
  };
  const total = count(system, tools);
  const withoutTools = count(system, []);
  const frame = count("", []);
  const figures: Figure[] = [{ profile: id, form, part: "total", tokens: total }];
  figures.push({
    profile: id,
    form,
    part: "frame (template, empty system prompt, user text)",
    tokens: frame,
  });
  figures.push({ profile: id, form, part: "system prompt", tokens: withoutTools - frame });
  let toolsOwn = 0;
  for (const tool of tools) {
    const without = count(system, tools.filter((other) => other !== tool));
    const bare = count(
      system,
      tools.map((other) => other === tool ? { ...tool, description: "" } : other),
    );
    const own = total - without;
    toolsOwn += own;
    figures.push({ profile: id, form, part: `${tool.name}: description`, tokens: total - bare });
    figures.push({
      profile: id,
      form,
      part: `${tool.name}: parameters`,
      tokens: own - (total - bare),
    });
  }
  figures.push({
    profile: id,
    form,
    part: "function-calling instructions (chat wrapper)",
    tokens: total - withoutTools - toolsOwn,
  });
  return figures;
}

function printTable(figures: readonly Figure[]): void {
  const parts = [...new Set(figures.map((figure) => figure.part))];
  const cell = ([profile, form]: (typeof COLUMNS)[number], part: string) =>
    String(
      figures.find((f) => f.profile === profile && f.form === form && f.part === part)?.tokens ??
        "-",
    );
  const width = Math.max(...parts.map((part) => part.length));
  const heads = COLUMNS.map(([profile, form]) => form === "full" ? profile : `${profile} lean`);
  console.error(`${"part".padEnd(width)}  ${heads.join("  ")}`);
  for (const part of parts) {
    const cells = COLUMNS.map((column, i) => cell(column, part).padStart(heads[i]!.length));
    console.error(`${part.padEnd(width)}  ${cells.join("  ")}`);
  }
}

/** Qwen2's vocabulary, from the llama.cpp sources node-llama-cpp ships, written into `dir`. */
async function extractVocab(dir: string): Promise<string> {
  const git = (args: string[]) =>
    new Deno.Command("git", { args, cwd: dir, stdout: "piped", stderr: "piped" }).output();
  const steps = [
    ["init", "-q"],
    ["fetch", "-q", new URL(`../${BUNDLE}`, import.meta.url).pathname],
  ];
  for (const step of steps) {
    const done = await git(step);
    if (!done.success) {
      throw new Error(
        `Cannot take the Qwen2 vocabulary from "${BUNDLE}": git ${step[0]} failed: ` +
          `${new TextDecoder().decode(done.stderr).trim()}; pass --model PATH to a GGUF instead`,
      );
    }
  }
  const shown = await git(["show", `FETCH_HEAD:${VOCAB_IN_BUNDLE}`]);
  if (!shown.success) {
    throw new Error(
      `Cannot find "${VOCAB_IN_BUNDLE}" in "${BUNDLE}"; pass --model PATH to a GGUF instead`,
    );
  }
  const path = `${dir}/qwen2-vocab.gguf`;
  await Deno.writeFile(path, shown.stdout);
  return path;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
