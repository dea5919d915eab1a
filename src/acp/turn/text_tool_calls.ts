/**
 * Tool calls a model wrote as text instead of making them (small models do; local-models.md):
 *
 * - Qwen's and Hermes' `<tool_call>{"name": …, "arguments": …}</tool_call>` (the closing tag may
 *   be missing at the end of the answer);
 * - a fenced block (```` ```json ````, ```` ``` ````, ```` ```tool_call ````), or bare JSON on a
 *   line of its own, holding an object with `name` and `arguments` or `parameters` (OpenAI's
 *   `{"type": "function", "function": {…}}` too), or an array of them;
 * - node-llama-cpp's generic function-call syntax, `||call: name({…})` (its `ChatWrapper`'s
 *   default settings in 3.21.1: prefix `||call: `, or `||call:`, then the name, the parameters as
 *   JSON in parentheses, nothing in them when there are none).
 *
 * The rule. An answer is calls when everything after its lead-in is call blocks and white space,
 * and every call names a tool on offer (`isTool`: a profile's name, an alias, another agent's
 * name it maps, an MCP tool). The lead-in is what comes before the first block: at most
 * `LEAD_IN_MAX_CHARS` characters of one paragraph ("I'll list the files."), after a
 * `<think>…</think>` the answer may open with. So prose that shows or mentions JSON is not a call:
 * words after a block, a longer explanation before it, JSON inside a sentence, an object that is
 * not a call, or a call to a tool that is not on offer (the example in node-llama-cpp's own
 * instructions, `getSomeInfo`) leave the answer as it is.
 *
 * A block's JSON must be whole, except inside a `<tool_call>` tag or after `||call:`, which say
 * plainly that a call is meant: there a call whose JSON is broken keeps the name it gives and its
 * arguments as text, so that the model is told where its JSON is wrong (tool_call_repair.ts).
 * Arguments given as a JSON string are passed on as that string, decoded later like a real call's.
 */

/** How a call was written. */
export type TextCallSyntax = "tool_call_tag" | "json_fence" | "json" | "call_prefix";

export interface TextToolCall {
  readonly name: string;
  /** The arguments as written: an object, or text (JSON text, or JSON that does not parse). */
  readonly input: unknown;
  readonly syntax: TextCallSyntax;
}

export interface TextCalls {
  readonly calls: readonly TextToolCall[];
  /** Where the lead-in (without its trailing white space) ends: the rest of the text is calls. */
  readonly start: number;
}

/** The longest lead-in before the calls, in characters. */
export const LEAD_IN_MAX_CHARS = 200;

const TAG_OPEN = "<tool_call>";
const TAG_CLOSE = "</tool_call>";
const CALL_PREFIX = "||call:";
const FENCE = "```";
/** The info strings a fence of calls may have. */
const FENCE_LANGUAGES = new Set(["", "json", "jsonc", "tool_call", "tool_calls"]);
/** Where a block may open: a tag or the generic prefix anywhere, a fence or JSON at a line start. */
const LINE_OPENER = /^[ \t]*(?:```|[{[])/gm;
const LEADING_THOUGHT = /^\s*<think>[\s\S]*?<\/think>/;
const NAME = /^[A-Za-z_][\w.\-/]*/;

/** The calls `text` is, by the rule above; undefined when it is not calls. */
export function textToolCalls(
  text: string,
  isTool: (name: string) => boolean,
): TextCalls | undefined {
  const thoughtEnd = LEADING_THOUGHT.exec(text)?.[0].length ?? 0;
  const first = firstOpener(text, thoughtEnd);
  if (first === undefined) return undefined;
  const leadIn = text.slice(thoughtEnd, first).trim();
  if (leadIn.length > LEAD_IN_MAX_CHARS || /\n[ \t]*\n/.test(leadIn)) return undefined;
  const calls = readBlocks(text, first);
  if (calls === undefined || !calls.every((call) => isTool(call.name))) return undefined;
  return { calls, start: text.slice(0, first).trimEnd().length };
}

function firstOpener(text: string, from: number): number | undefined {
  LINE_OPENER.lastIndex = from;
  const atLineStart = LINE_OPENER.exec(text)?.index;
  const found = [text.indexOf(TAG_OPEN, from), text.indexOf(CALL_PREFIX, from), atLineStart ?? -1]
    .filter((index) => index >= 0);
  return found.length === 0 ? undefined : Math.min(...found);
}

/** Blocks from `from` to the end, with only white space around them; undefined if not. */
function readBlocks(text: string, from: number): TextToolCall[] | undefined {
  const calls: TextToolCall[] = [];
  for (let at = skipSpace(text, from); at < text.length; at = skipSpace(text, at)) {
    const block = readBlock(text, at);
    if (block === undefined) return undefined;
    calls.push(...block.calls);
    at = block.end;
  }
  return calls.length === 0 ? undefined : calls;
}

interface Block {
  readonly calls: readonly TextToolCall[];
  /** Just past the block. */
  readonly end: number;
}

function readBlock(text: string, at: number): Block | undefined {
  if (text.startsWith(TAG_OPEN, at)) return readTag(text, at + TAG_OPEN.length);
  if (text.startsWith(CALL_PREFIX, at)) return readPrefixCall(text, at + CALL_PREFIX.length);
  if (text.startsWith(FENCE, at)) return readFence(text, at + FENCE.length);
  if (text[at] === "{" || text[at] === "[") {
    const end = jsonEnd(text, at);
    if (end === -1) return undefined;
    const calls = callsIn(parsedJson(text.slice(at, end)), "json", false);
    return calls && { calls, end };
  }
  return undefined;
}

/** `<tool_call>` up to its closing tag, or the next tag, or the end of the answer. */
function readTag(text: string, from: number): Block | undefined {
  const close = text.indexOf(TAG_CLOSE, from);
  const next = text.indexOf(TAG_OPEN, from);
  const bodyEnd = [close, next, text.length].filter((index) => index >= 0)
    .reduce((a, b) => Math.min(a, b));
  const end = bodyEnd === close ? close + TAG_CLOSE.length : bodyEnd;
  const calls = tagCalls(withoutFence(text.slice(from, bodyEnd).trim()));
  return calls && { calls, end };
}

/** A tag's JSON, one or more objects; else the name and arguments of a call whose JSON broke. */
function tagCalls(body: string): readonly TextToolCall[] | undefined {
  const values = jsonValues(body);
  if (values !== undefined) {
    const calls = values.map((value) => callsIn(value, "tool_call_tag", true));
    return calls.every((found) => found !== undefined) ? calls.flat() : undefined;
  }
  const name = /"name"\s*:\s*"([^"\\]+)"/.exec(body)?.[1];
  if (name === undefined) return undefined;
  return [{ name, input: brokenArguments(body), syntax: "tool_call_tag" }];
}

/**
 * The arguments of a call whose JSON does not parse, as text: the object after `"arguments":`
 * (or `"parameters":`) where its braces close, else from there to the end; the whole body when
 * neither key is there. The check of the call says what is wrong with it.
 */
function brokenArguments(body: string): string {
  const key = /"(?:arguments|parameters)"\s*:\s*/.exec(body);
  if (key === null) return body;
  const start = key.index + key[0].length;
  const end = body[start] === "{" ? jsonEnd(body, start) : -1;
  return body.slice(start, end === -1 ? body.length : end).trim();
}

/** `||call: name({…})` or `||call: name()`. */
function readPrefixCall(text: string, from: number): Block | undefined {
  const nameAt = skipSpace(text, from, " ");
  const name = NAME.exec(text.slice(nameAt))?.[0];
  if (name === undefined) return undefined;
  let at = skipSpace(text, nameAt + name.length, " ");
  if (text[at] !== "(") return undefined;
  at = skipSpace(text, at + 1);
  const call = (input: unknown, end: number): Block => ({
    calls: [{ name, input, syntax: "call_prefix" }],
    end,
  });
  if (text[at] === ")") return call({}, at + 1);
  if (text[at] !== "{") return undefined;
  const jsonStop = jsonEnd(text, at);
  if (jsonStop === -1) {
    // Broken JSON: up to the last parenthesis, which closes the call as far as can be told.
    const close = text.lastIndexOf(")");
    const stop = close > at ? close : text.length;
    return call(text.slice(at, stop).trim(), Math.min(stop + 1, text.length));
  }
  const close = skipSpace(text, jsonStop);
  if (text[close] !== ")") return undefined;
  const json = text.slice(at, jsonStop);
  const value = parsedJson(json);
  return call(value === NOT_JSON ? json : value, close + 1);
}

/** A fence of calls: JSON (or `<tool_call>` tags) between ```` ``` ```` lines. */
function readFence(text: string, from: number): Block | undefined {
  const lineEnd = text.indexOf("\n", from);
  if (lineEnd === -1) return undefined;
  if (!FENCE_LANGUAGES.has(text.slice(from, lineEnd).trim().toLowerCase())) return undefined;
  const closing = /\n[ \t]*```[ \t]*(?=\n|$)/g;
  closing.lastIndex = lineEnd;
  const found = closing.exec(text);
  if (found === null) return undefined;
  const body = text.slice(lineEnd + 1, found.index).trim();
  const end = found.index + found[0].length;
  if (body.startsWith(TAG_OPEN)) {
    const calls = readBlocks(body, 0);
    return calls && { calls, end };
  }
  const values = jsonValues(body);
  if (values === undefined) return undefined;
  const calls = values.map((value) => callsIn(value, "json_fence", false));
  return calls.every((found) => found !== undefined) ? { calls: calls.flat(), end } : undefined;
}

/** A body that is itself one fenced block, without the fence. */
function withoutFence(body: string): string {
  const fenced = /^```[^\n]*\n([\s\S]*?)\n[ \t]*```$/.exec(body);
  return fenced === null ? body : fenced[1]!.trim();
}

/**
 * A call object (or an array of them) as calls. `lenient`: the arguments may be absent (a call
 * without arguments), as in a tag, which says a call is meant; elsewhere a `name` alone is data.
 */
function callsIn(
  value: unknown,
  syntax: TextCallSyntax,
  lenient: boolean,
): TextToolCall[] | undefined {
  const values = Array.isArray(value) ? value : [value];
  const calls = values.map((item) => callOf(item, syntax, lenient));
  if (calls.length === 0 || !calls.every((call) => call !== undefined)) return undefined;
  return calls;
}

function callOf(
  value: unknown,
  syntax: TextCallSyntax,
  lenient: boolean,
): TextToolCall | undefined {
  if (!isObject(value)) return undefined;
  // OpenAI's shape: {"type": "function", "function": {"name": …, "arguments": …}}.
  const call = isObject(value.function) ? value.function : value;
  const name = call.name;
  if (typeof name !== "string" || name === "") return undefined;
  const key = ["arguments", "parameters"].find((k) => Object.hasOwn(call, k));
  if (key === undefined) return lenient ? { name, input: {}, syntax } : undefined;
  return { name, input: call[key], syntax };
}

/** One or more JSON objects or arrays with white space between; undefined if not. */
function jsonValues(body: string): unknown[] | undefined {
  const values: unknown[] = [];
  for (let at = skipSpace(body, 0); at < body.length; at = skipSpace(body, at)) {
    if (body[at] !== "{" && body[at] !== "[") return undefined;
    const end = jsonEnd(body, at);
    if (end === -1) return undefined;
    const value = parsedJson(body.slice(at, end));
    if (value === NOT_JSON) return undefined;
    values.push(value);
    at = end;
  }
  return values.length === 0 ? undefined : values;
}

const NOT_JSON = Symbol("not JSON");

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

/**
 * Just past the object or array that opens at `start`, by its brackets (strings and escapes
 * respected); -1 when they never close.
 */
function jsonEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "{" || char === "[") depth++;
    else if (char === "}" || char === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

function skipSpace(text: string, from: number, spaces = " \t\r\n"): number {
  let at = from;
  while (at < text.length && spaces.includes(text[at]!)) at++;
  return at;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
