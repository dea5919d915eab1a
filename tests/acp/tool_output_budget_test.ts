import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import {
  contextResultBudget,
  type CountTokens,
  fitResult,
  fitToTokens,
  resultOrigin,
} from "../../src/acp/turn/tool_output_budget.ts";
import {
  CLAUDE_CUT_NOTES,
  type CutNotes,
  LLAMA_CUT_NOTES,
  type OutputCut,
  type ResultOrigin,
} from "../../src/profile/cut_notes.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";
import { answerTokenCap } from "../../src/model/answer_cap.ts";
import type { ConversationItem, ToolDefinition } from "../../src/model/model.ts";
import { estimatePromptTokens, estimateTextTokens } from "../../src/model/token_estimate.ts";

const count: CountTokens = estimateTextTokens;

/** `n` lines `line 1` … `line n`, each ending in `eol`. */
function numbered(n: number, eol = "\n"): string {
  return Array.from({ length: n }, (_, i) => `line ${i + 1}${eol}`).join("");
}

function fit(
  text: string,
  maxTokens: number,
  origin: ResultOrigin,
  notes: CutNotes = LLAMA_CUT_NOTES,
) {
  return fitToTokens(text, maxTokens, count, (cut) => notes.cut(origin, cut));
}

const SHELL: ResultOrigin = { kind: "shell", tool: "shell" };

/** The lines of a cut result before and after its note. */
function around(text: string, note: string) {
  const at = text.indexOf(note);
  assert(at >= 0, `the note is in the result: ${text}`);
  const head = text.slice(0, at);
  const tail = text.slice(at + note.length).replace(/^\r?\n/, "");
  return { head, tail };
}

Deno.test("a result within its budget is given whole, with no note", () => {
  const text = numbered(10);
  const fitted = fit(text, count(text), SHELL);
  assertEquals(fitted, { text });
});

Deno.test("an empty result stays empty, even with no room at all", () => {
  assertEquals(fit("", 0, SHELL), { text: "" });
});

Deno.test("a long result keeps whole lines of its head and a larger tail, the note between, within the budget", () => {
  const text = numbered(500);
  const fitted = fit(text, 300, SHELL);
  assert(fitted.cut !== undefined);
  assert(count(fitted.text) <= 300, `${count(fitted.text)} tokens`);
  const note = LLAMA_CUT_NOTES.cut(SHELL, fitted.cut);
  const { head, tail } = around(fitted.text, note);
  assert(head.startsWith("line 1\n"), head);
  assert(tail.endsWith("line 500\n"), tail);
  const headLines = head.split(/(?<=\n)/);
  const tailLines = tail.split(/(?<=\n)/);
  // Every kept line is a whole line of the output, in order, with none left between them.
  assertEquals(head, numbered(headLines.length));
  assertEquals(fitted.cut.fromLine, headLines.length + 1);
  assertEquals(fitted.cut.toLine, 500 - tailLines.length);
  assertEquals(tail, numbered(500).split(/(?<=\n)/).slice(fitted.cut.toLine).join(""));
  assert(tailLines.length > headLines.length, `head ${headLines.length}, tail ${tailLines.length}`);
  assertEquals(fitted.cut.lines, 500 - headLines.length - tailLines.length);
  assertEquals(fitted.cut.insideLines, false);
  assertEquals(fitted.cut.totalTokens, count(text));
  assertEquals(fitted.cut.maxTokens, 300);
});

Deno.test("the llama profile's notes say what was cut and each tool's way to the rest", () => {
  const text = numbered(400);
  const cases: [ResultOrigin, string][] = [
    [
      { kind: "shell", tool: "shell" },
      "run the command again narrowed, e.g. piped to head -n, tail -n or grep",
    ],
    [
      { kind: "grep", tool: "fs_grep" },
      "narrow the pattern, path or glob, or page through with head_limit and offset",
    ],
    [{ kind: "glob", tool: "fs_glob" }, "narrow the pattern or path"],
    [{ kind: "mcp", tool: "mcp__db__query" }, "ask mcp__db__query for less at a time"],
    [{ kind: "other", tool: "fs_edit" }, "ask fs_edit for less at a time"],
  ];
  for (const [origin, how] of cases) {
    const fitted = fit(text, 200, origin);
    const cut = fitted.cut!;
    const note = LLAMA_CUT_NOTES.cut(origin, cut);
    assertEquals(
      note,
      `[lines ${cut.fromLine}-${cut.toLine} cut (${cut.lines} lines, ${cut.cutTokens} tokens) ` +
        `to fit the model's context: ${how}]`,
    );
    assertStringIncludes(fitted.text, `\n${note}\n`);
  }
});

Deno.test("a cut read names the file's lines left out, as fs_read's offset and limit, from the read's own offset", () => {
  // The read began at line 101 of the file: its first result line is file line 101.
  const text = Array.from({ length: 300 }, (_, i) => `row ${101 + i}\n`).join("");
  const origin: ResultOrigin = {
    kind: "read",
    tool: "fs_read",
    path: "src/big.txt",
    firstLine: 101,
  };
  const fitted = fit(text, 150, origin);
  const cut = fitted.cut!;
  const { head, tail } = around(fitted.text, LLAMA_CUT_NOTES.cut(origin, cut));
  const lastShown = Number(head.trim().split("\n").at(-1)!.slice(4));
  const nextShown = Number(tail.split("\n")[0]!.slice(4));
  const limit = nextShown - lastShown - 1;
  assertStringIncludes(
    fitted.text,
    `read them with fs_read "src/big.txt" offset ${lastShown + 1} and limit ${limit}, or fewer ` +
      "lines at a time]",
  );
  assertStringIncludes(fitted.text, `[lines ${cut.fromLine}-${cut.toLine} cut (${limit} lines`);
});

Deno.test("the claude profile keeps Claude Code's words: Bash's truncated marker, Read's token cap, Glob's and an MCP tool's sentences", () => {
  const text = numbered(400);
  const bash = fit(text, 200, { kind: "shell", tool: "Bash" }, CLAUDE_CUT_NOTES);
  assertStringIncludes(
    bash.text,
    `\n... [${bash.cut!.lines} lines truncated] ... (run the command again narrowed, e.g. piped ` +
      "to head, tail or grep, to see them)\n",
  );
  const read = fit(
    text,
    200,
    { kind: "read", tool: "Read", path: "a.txt", firstLine: 1 },
    CLAUDE_CUT_NOTES,
  );
  const cut = read.cut!;
  assertStringIncludes(
    read.text,
    `\nFile content (${count(text)} tokens) exceeds maximum allowed tokens (200), so lines ` +
      `${cut.fromLine}-${cut.toLine} are not shown. Use offset and limit parameters to read ` +
      `specific portions of the file (offset ${cut.fromLine} and limit ${cut.lines} for these), ` +
      "or search for specific content instead of reading the whole file.\n",
  );
  const glob = fit(text, 200, { kind: "glob", tool: "Glob" }, CLAUDE_CUT_NOTES);
  assertStringIncludes(
    glob.text,
    `... [${glob.cut!.lines} lines truncated] ... (Results are truncated. Consider using a more ` +
      "specific path or pattern.)",
  );
  const grep = fit(text, 200, { kind: "grep", tool: "Grep" }, CLAUDE_CUT_NOTES);
  assertStringIncludes(grep.text, "page through with head_limit and offset, to see them)");
  const mcp = fit(text, 200, { kind: "mcp", tool: "mcp__db__query" }, CLAUDE_CUT_NOTES);
  assertStringIncludes(
    mcp.text,
    `MCP tool "mcp__db__query" response (${count(text)} tokens) exceeds maximum allowed tokens ` +
      `(200): ... [${mcp.cut!.lines} lines truncated] ... Please use pagination, filtering, or ` +
      "limit parameters to reduce the response size.",
  );
});

Deno.test("each profile carries its own notes as data", () => {
  assertEquals(compatProfile("llama").cutNotes, LLAMA_CUT_NOTES);
  assertEquals(compatProfile("claude").cutNotes, CLAUDE_CUT_NOTES);
});

Deno.test("a single line longer than the budget keeps its start and its end, cut inside", () => {
  // Four characters a token, whatever they are: the parts compare by length.
  const quarter: CountTokens = (text) => Math.ceil(text.length / 4);
  const text = "START" + "x".repeat(30_000) + "0123456789END";
  const fitted = fitToTokens(text, 120, quarter, (cut) => LLAMA_CUT_NOTES.cut(SHELL, cut));
  const cut = fitted.cut!;
  assert(quarter(fitted.text) <= 120, `${quarter(fitted.text)} tokens`);
  assert(fitted.text.startsWith("STARTxxx"), fitted.text);
  assert(fitted.text.endsWith("0123456789END"), fitted.text);
  assertEquals(cut.insideLines, true);
  assertEquals([cut.fromLine, cut.toLine], [1, 1]);
  const note = LLAMA_CUT_NOTES.cut(SHELL, cut);
  assertEquals(
    note,
    `[${cut.chars} characters of line 1 cut to fit the model's context: run the command again ` +
      "narrowed, e.g. piped to cut -c, head -c or grep]",
  );
  const { head, tail } = around(fitted.text, note);
  assertEquals(
    head.length - 1 + tail.length + cut.chars,
    text.length,
    "the line break is the note's",
  );
  assert(tail.length > head.length, "the end gets the larger part");
});

Deno.test("one long line among short ones is cut inside while the short ones stay whole", () => {
  const text = "first\nsecond\n" + "y".repeat(20_000) + "\nerror: the end\n";
  const fitted = fit(text, 100, SHELL);
  assert(fitted.text.startsWith("first\nsecond\nyyy"), fitted.text);
  assert(fitted.text.endsWith("yyy\nerror: the end\n"), fitted.text);
  assertEquals(fitted.cut?.insideLines, true);
  assertEquals([fitted.cut?.fromLine, fitted.cut?.toLine], [3, 3]);
  assert(count(fitted.text) <= 100);
});

Deno.test("a budget too small for any of the output gives the note alone, which still says how to get it", () => {
  const text = numbered(50);
  for (const budget of [0, 3, 20]) {
    const fitted = fit(text, budget, SHELL);
    assertEquals(
      fitted.text,
      "[lines 1-50 cut (50 lines, " + count(text) + " tokens) to fit the model's context: run " +
        "the command again narrowed, e.g. piped to head -n, tail -n or grep]",
    );
  }
});

Deno.test("CRLF output is cut at its own line ends and the note keeps them", () => {
  const text = numbered(300, "\r\n");
  const fitted = fit(text, 150, SHELL);
  assert(fitted.cut !== undefined);
  assert(!/[^\r]\n/.test(fitted.text), "no bare line feed");
  assert(!/\r(?!\n)/.test(fitted.text), "no bare carriage return");
  assert(fitted.text.startsWith("line 1\r\n"));
  assert(fitted.text.endsWith("line 300\r\n"));
  assertStringIncludes(fitted.text, `\r\n${LLAMA_CUT_NOTES.cut(SHELL, fitted.cut)}\r\n`);
});

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

Deno.test("multibyte output is never cut inside a character, and stays within a byte-counting tokenizer's budget", () => {
  // A byte-level tokenizer at its worst: one token a UTF-8 byte.
  const bytes: CountTokens = (text) => new TextEncoder().encode(text).length;
  const lines = Array.from(
    { length: 200 },
    (_, i) => `${i} 日本語のテキスト 🙂🙃 ${"é".repeat(i % 7)}\n`,
  );
  const oneLine = "🙂".repeat(5_000) + "終わり";
  for (const text of [lines.join(""), oneLine]) {
    for (const budget of [297, 600, 1001]) {
      const fitted = fitToTokens(text, budget, bytes, (cut) => LLAMA_CUT_NOTES.cut(SHELL, cut));
      assert(bytes(fitted.text) <= budget, `${bytes(fitted.text)} > ${budget}`);
      assert(!LONE_SURROGATE.test(fitted.text), "no half of a surrogate pair");
      assert(fitted.text.includes("[") && fitted.cut !== undefined);
    }
  }
  const cut = fitToTokens(oneLine, 400, bytes, (c) => LLAMA_CUT_NOTES.cut(SHELL, c));
  assert(cut.text.startsWith("🙂"), cut.text);
  assert(cut.text.endsWith("🙂終わり"), cut.text);
});

Deno.test("a tokenizer that counts the joined text above its lines' sum still gets a result within the budget", () => {
  // Each call costs one token more, as a tokenizer adding a start token would.
  const withStart: CountTokens = (text) => estimateTextTokens(text) + 1;
  const text = numbered(400);
  for (const budget of [100, 150, 400]) {
    const fitted = fitToTokens(text, budget, withStart, (cut) => LLAMA_CUT_NOTES.cut(SHELL, cut));
    assert(withStart(fitted.text) <= budget, `${withStart(fitted.text)} > ${budget}`);
    assert(fitted.text.startsWith("line 1\n") && fitted.text.endsWith("line 400\n"));
  }
});

const TOOLS: ToolDefinition[] = [{
  name: "shell",
  description: "Run a command.",
  inputSchema: { type: "object", properties: { command: { type: "string" } } },
}];

function conversationSoFar(): ConversationItem[] {
  return [
    { role: "system", text: "You are a coding assistant." },
    { role: "user", text: "Print the table." },
    { role: "assistant", segments: [{ type: "text", text: "Running it." }] },
  ];
}

Deno.test("numeric output of about 1.35 characters a token stays within its share of the free context, counted by the estimator", async () => {
  const row = (i: number) => `${(i * 7919) % 100000} ${(i * 0.731).toFixed(3)} ${i * 13}\n`;
  const text = Array.from({ length: 3_000 }, (_, i) => row(i)).join("");
  // The estimator charges numbers at least what a real tokenizer does (1.35 characters a token).
  assert(
    text.length / estimateTextTokens(text) <= 1.35,
    `${text.length / estimateTextTokens(text)}`,
  );
  const contextSize = 4096;
  const conversation = conversationSoFar();
  const budget = contextResultBudget({ contextSize }, () => ({ conversation, tools: TOOLS }));
  const free = contextSize - estimatePromptTokens(conversation, TOOLS) -
    answerTokenCap(contextSize);
  const share = Math.floor(free * 0.5);
  const result = await fitResult(text, SHELL, budget, LLAMA_CUT_NOTES);
  const used = estimateTextTokens(result);
  assert(used <= share, `${used} tokens, share ${share}`);
  assert(used >= share * 0.9, `the share is used: ${used} of ${share}`);
  assert(result.startsWith(row(0)) && result.endsWith(row(2_999)));
});

Deno.test("the budget counts with the model's own tokenizer where it has one, and leaves the answer's room", async () => {
  const seen: unknown[] = [];
  const model = {
    contextSize: 8192,
    countPromptTokens(conversation: readonly ConversationItem[], tools: readonly ToolDefinition[]) {
      seen.push([conversation.length, tools.length]);
      return Promise.resolve(3000);
    },
    countTextTokens: (text: string) => text.length,
  };
  const budget = contextResultBudget(
    model,
    () => ({ conversation: conversationSoFar(), tools: TOOLS }),
    0.25,
  );
  assertEquals(await budget.freeTokens(), 8192 - 3000 - answerTokenCap(8192));
  assertEquals(seen, [[3, 1]]);
  assertEquals(budget.countTokens("abcd"), 4);
  const result = await fitResult("x\n".repeat(5000), SHELL, budget, LLAMA_CUT_NOTES);
  assert(result.length <= Math.floor((8192 - 3000 - 2048) * 0.25), `${result.length}`);
});

Deno.test("a full context leaves no free tokens, and a model without a context size cuts nothing", async () => {
  const full = contextResultBudget(
    { contextSize: 1024, countPromptTokens: () => Promise.resolve(900) },
    () => ({ conversation: [], tools: [] }),
  );
  assertEquals(await full.freeTokens(), 0);
  const note = await fitResult(numbered(10), SHELL, full, LLAMA_CUT_NOTES);
  assertMatch(note, /^\[lines 1-10 cut/);
  const unsized = contextResultBudget({}, () => ({ conversation: [], tools: [] }));
  const text = numbered(10_000);
  assertEquals(await fitResult(text, SHELL, unsized, LLAMA_CUT_NOTES), text);
});

Deno.test("a result's origin follows its operation: a read from its offset, edits and refusals as other", () => {
  assertEquals(resultOrigin({ capability: "fs_read", path: "a.ts", offset: 40 }, "Read"), {
    kind: "read",
    tool: "Read",
    path: "a.ts",
    firstLine: 40,
  });
  assertEquals(resultOrigin({ capability: "fs_read", path: "a.ts" }, "fs_read"), {
    kind: "read",
    tool: "fs_read",
    path: "a.ts",
    firstLine: 1,
  });
  assertEquals(resultOrigin({ capability: "shell", command: "ls", timeoutMs: 1 }, "Bash"), {
    kind: "shell",
    tool: "Bash",
  });
  assertEquals(
    resultOrigin({ capability: "fs_glob", pattern: "*" }, "fs_glob").kind,
    "glob",
  );
  assertEquals(
    resultOrigin(
      { capability: "fs_edit", path: "a", oldString: "x", newString: "y", replaceAll: false },
      "Edit",
    ),
    { kind: "other", tool: "Edit" },
  );
  assertEquals(resultOrigin(undefined, "Bash"), { kind: "other", tool: "Bash" });
});

Deno.test("older results are shortened in the same words in both profiles", () => {
  const cut: OutputCut = {
    fromLine: 4,
    toLine: 120,
    lines: 117,
    chars: 900,
    insideLines: false,
    cutTokens: 400,
    totalTokens: 450,
    maxTokens: 80,
  };
  assertEquals(LLAMA_CUT_NOTES.older(cut), "[older output shortened: 117 lines cut]");
  assertEquals(CLAUDE_CUT_NOTES.older(cut), "[older output shortened: 117 lines cut]");
  assertEquals(
    LLAMA_CUT_NOTES.older({ ...cut, insideLines: true, lines: 1, toLine: 4 }),
    "[older output shortened: 900 characters cut]",
  );
});
