/**
 * Whether a small model whose calls use node-llama-cpp's generic syntax calls the right tool
 * more often when its first tokens are chosen under a grammar (tool_choice_grammar.ts): ten
 * prompts that each need one tool of the llama profile, asked in process with the agent's system
 * prompt and tool definitions, under each tool choice, side by side. No tool is run.
 *
 * Each answer is one of: a relevant call (the right tool, input the tool takes, naming what was
 * asked for: the file, the word, the command), another valid call (a tool on offer, input it
 * takes), an invalid call (input the tool refuses), a call cut by the cap before its params
 * ended (`unfinished`), or text. `required` makes every answer a call: the most relevant calls
 * any rule choosing between a call and text could make.
 *
 *   deno run -A bench/tool_choice.ts                      # the installed test parts
 *   deno run -A bench/tool_choice.ts --model m.gguf       # another model (repeatable)
 *   deno run -A bench/tool_choice.ts --choices free,constrained --max-tokens 96 --threads 1
 *
 * One JSON line per figure (model, choice, figure, value) on stdout, each answer's line on
 * stderr as it comes, then a table on stderr.
 *
 * Measured on the 2-core build machine (one thread, answers capped at 96 tokens): SmolLM2-135M
 * (ChatML) and Gemma 3 270M (Gemma) made no call in 10 prompts, free or constrained (the call
 * prefix's first token is far below the top text token at an answer's start, so under greedy
 * decoding the grammar changes nothing); required, 2 and 5 calls, none relevant, and 8 and 5
 * calls still writing params (extra keys) at the cap. So the choice stays `free` by default.
 */
import { parseArgs } from "node:util";
import { basename } from "node:path";
import { systemPromptItem } from "../src/acp/turn/system_prompt.ts";
import { createToolKit } from "../src/agent/tools/tool_kits.ts";
import type { ToolKit } from "../src/agent/tools/tool_kit.ts";
import { chatFormatOf, openLlamaRuntime } from "../src/model/llama/llama_model.ts";
import type { ModelSession, RequestedToolCall } from "../src/model/model.ts";
import { TOOL_CHOICES, type ToolChoice } from "../src/model/llama/tool_choice_grammar.ts";
import { compatProfile, profileTool } from "../src/profile/compat_profile.ts";
import type { ToolCapability } from "../src/profile/tool_identity.ts";
import { GEMMA_MODEL, TEST_PARTS } from "../tests/helpers/test_parts.ts";

interface Task {
  readonly prompt: string;
  readonly capability: ToolCapability;
  /** Text a call about this task has in its input (compared case-blind). */
  readonly mentions: string;
}

/** The first five are `doctor`'s probe; the rest ask the same tools in other words, and edit. */
const TASKS: readonly Task[] = [
  { prompt: "What does the file notes.txt say?", capability: "fs_read", mentions: "notes.txt" },
  {
    prompt: "Which Markdown files (*.md) does this project have?",
    capability: "fs_glob",
    mentions: ".md",
  },
  { prompt: "Which files contain the word TODO?", capability: "fs_grep", mentions: "TODO" },
  {
    prompt: "Run `git status` and tell me what it says.",
    capability: "shell",
    mentions: "git status",
  },
  {
    prompt: "Create a file hello.txt that contains the line: Hello, world",
    capability: "fs_write",
    mentions: "hello.txt",
  },
  {
    prompt: "In config.json, change the port from 8080 to 9090.",
    capability: "fs_edit",
    mentions: "config.json",
  },
  { prompt: "Show me the README.md file.", capability: "fs_read", mentions: "README.md" },
  { prompt: "List the TypeScript files under src.", capability: "fs_glob", mentions: "src" },
  {
    prompt: "Where is the function parseArgs used?",
    capability: "fs_grep",
    mentions: "parseArgs",
  },
  { prompt: "Run the tests with `npm test`.", capability: "shell", mentions: "npm test" },
];

const OUTCOMES = ["relevant", "valid", "invalid", "unfinished", "text"] as const;
type Outcome = (typeof OUTCOMES)[number];
const CALL_OUTCOMES: readonly Outcome[] = ["relevant", "valid", "invalid"];

/** A project like the one the prompts speak of (the model sees only its path). */
const PROJECT: Readonly<Record<string, string>> = {
  "notes.txt": "Ship on Friday.\n",
  "README.md": "# app\n",
  "config.json": '{ "port": 8080 }\n',
  "src/main.ts": "// TODO: parseArgs\n",
};

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      model: { type: "string", multiple: true },
      choices: { type: "string", default: TOOL_CHOICES.join(",") },
      "max-tokens": { type: "string", default: "96" },
      "ctx-size": { type: "string", default: "4096" },
      // The figures are counts, not speeds: one thread is what a busy machine runs fastest.
      threads: { type: "string", default: "1" },
      tasks: { type: "string", default: String(TASKS.length) },
    },
  });
  const models = values.model ?? [TEST_PARTS?.instructModel, GEMMA_MODEL].filter(isString);
  if (models.length === 0) {
    console.error("No model: pass --model PATH, or run tools/install_test_parts.sh");
    return 2;
  }
  const choices = values.choices.split(",");
  const unknown = choices.find((choice) => !isToolChoice(choice));
  if (unknown !== undefined) {
    console.error(`--choices: "${unknown}" is none of ${TOOL_CHOICES.join(", ")}`);
    return 2;
  }
  const maxTokens = Number(values["max-tokens"]);
  const tasks = TASKS.slice(0, Number(values.tasks));
  const cwd = await Deno.makeTempDir({ prefix: "tool_choice_" });
  const runtime = await openLlamaRuntime({ gpu: "off", log: () => {} });
  const figures: Figure[] = [];
  try {
    for (const [path, file] of Object.entries(PROJECT)) {
      await Deno.mkdir(`${cwd}/${path}`.replace(/\/[^/]*$/, ""), { recursive: true });
      await Deno.writeTextFile(`${cwd}/${path}`, file);
    }
    for (const modelPath of models) {
      for (const choice of choices.filter(isToolChoice)) {
        const model = await runtime.loadModel({
          modelPath,
          contextSize: Number(values["ctx-size"]),
          threads: Number(values.threads),
          toolChoice: choice,
        });
        try {
          figures.push(
            ...await measure({ model: basename(modelPath), session: await model.openSession() }, {
              choice,
              tasks,
              cwd,
              maxTokens,
            }),
          );
        } finally {
          await model.dispose();
        }
      }
    }
  } finally {
    await runtime.dispose();
    await Deno.remove(cwd, { recursive: true });
  }
  for (const figure of figures) console.log(JSON.stringify(figure));
  printTable(figures);
  return 0;
}

interface Figure {
  readonly model: string;
  readonly chatWrapper: string;
  readonly choice: ToolChoice;
  readonly figure: Outcome | "calls" | "tasks" | "seconds";
  readonly value: number;
}

interface OpenedSession {
  readonly model: string;
  readonly session: ModelSession;
}

async function measure(
  opened: OpenedSession,
  options: { choice: ToolChoice; tasks: readonly Task[]; cwd: string; maxTokens: number },
): Promise<Figure[]> {
  const { model, session } = opened;
  const profile = compatProfile("llama");
  const kit = createToolKit(profile);
  const tools = kit.definitions();
  const system = systemPromptItem({ cwd: options.cwd, additionalDirectories: [] }, profile);
  const chatWrapper = (await chatFormatOf(session))?.wrapper ?? "?";
  const counts = new Map<Outcome, number>(OUTCOMES.map((outcome) => [outcome, 0]));
  const started = performance.now();
  try {
    for (const task of options.tasks) {
      const taskStarted = performance.now();
      const answer = await session.generate({
        conversation: [system, { role: "user", text: task.prompt }],
        tools,
        signal: new AbortController().signal,
        maxTokens: options.maxTokens,
        onTextChunk: () => {},
        onThoughtChunk: () => {},
      });
      const outcome = answer.toolCalls.length > 0
        ? best(answer.toolCalls.map((call) => judge(task, call, kit, options.cwd)))
        : answer.stop === "max_tokens" && answer.text.trim() === ""
        // No text and no call: node-llama-cpp was writing a call's params when the cap came.
        ? "unfinished"
        : "text";
      counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
      console.error(JSON.stringify({
        model,
        choice: options.choice,
        prompt: task.prompt,
        outcome,
        calls: answer.toolCalls,
        text: answer.text.slice(0, 120),
        stop: answer.stop,
        seconds: seconds(taskStarted),
      }));
    }
  } finally {
    await session.dispose();
  }
  const figure = (name: Figure["figure"], value: number): Figure => ({
    model,
    chatWrapper,
    choice: options.choice,
    figure: name,
    value,
  });
  const calls = CALL_OUTCOMES.reduce((sum, outcome) => sum + (counts.get(outcome) ?? 0), 0);
  return [
    figure("tasks", options.tasks.length),
    figure("calls", calls),
    ...OUTCOMES.map((outcome) => figure(outcome, counts.get(outcome) ?? 0)),
    figure("seconds", seconds(started)),
  ];
}

/** How one call went for `task`: relevant, valid (another tool or input), or invalid. */
function judge(task: Task, call: RequestedToolCall, kit: ToolKit, cwd: string): Outcome {
  const tool = profileTool(kit.profile, call.name);
  if (tool === undefined) return "invalid";
  if (!kit.parse(tool.capability, call.input, call.name, cwd).ok) return "invalid";
  const input = JSON.stringify(call.input ?? null).toLowerCase();
  return tool.capability === task.capability && input.includes(task.mentions.toLowerCase())
    ? "relevant"
    : "valid";
}

function best(outcomes: readonly Outcome[]): Outcome {
  return outcomes.reduce((a, b) => (OUTCOMES.indexOf(b) < OUTCOMES.indexOf(a) ? b : a));
}

function printTable(figures: readonly Figure[]): void {
  const columns = [...new Set(figures.map((f) => `${f.model} ${f.choice}`))];
  const rows: Figure["figure"][] = ["tasks", "calls", ...OUTCOMES, "seconds"];
  const cell = (column: string, row: Figure["figure"]) =>
    String(
      figures.find((f) => `${f.model} ${f.choice}` === column && f.figure === row)?.value ?? "-",
    );
  const width = Math.max(...rows.map((row) => row.length));
  console.error(`${"".padEnd(width)}  ${columns.join("  ")}`);
  for (const row of rows) {
    const cells = columns.map((column) => cell(column, row).padStart(column.length));
    console.error(`${row.padEnd(width)}  ${cells.join("  ")}`);
  }
}

function seconds(since: number): number {
  return Math.round(performance.now() - since) / 1000;
}

function isString(value: string | undefined): value is string {
  return value !== undefined;
}

function isToolChoice(value: string): value is ToolChoice {
  return (TOOL_CHOICES as readonly string[]).includes(value);
}

if (import.meta.main) Deno.exit(await main(Deno.args));
