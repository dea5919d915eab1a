/**
 * How the first tokens of an answer are chosen where a model writes tool calls in
 * node-llama-cpp's generic syntax (`||call: name(params)`, chat_format.ts), a syntax it was never
 * trained on:
 *
 * - `free`: as node-llama-cpp does it. The model writes what it likes; a call is seen when its
 *   text happens to start with the call prefix.
 * - `constrained`: the answer's first tokens are generated under a grammar that allows a call to
 *   one of the tools on offer (the prefix, a tool's name, the params' opening) or text, and
 *   nothing else (as llama-cpp-python's `chatml-function-calling` lets a model choose between a
 *   message and `functions.<name>:`). Where the model chooses a call, node-llama-cpp writes it
 *   with its own grammars for the name and the params.
 * - `required`: every answer starts with a call (OpenAI's `tool_choice: "required"`), so the
 *   model can never answer in words. For measuring only: it shows which calls a model would make
 *   if it always chose one, the most a rule choosing between a call and text could get right.
 *
 * This file is the pure part: the grammar's text and the reading of what was generated under it.
 * Running it on a model is llama_tool_choice.ts.
 */

export const TOOL_CHOICES = ["free", "constrained", "required"] as const;
export type ToolChoice = (typeof TOOL_CHOICES)[number];

/** The generic call syntax, as the chat wrapper spells it: `||call: ` and `(` by default. */
export interface CallSyntax {
  readonly prefix: string;
  readonly paramsPrefix: string;
}

/** What an answer's first tokens chose: a call to a tool, or text. */
export type FirstChoice = { readonly kind: "call"; readonly name: string } | {
  readonly kind: "text";
};

/**
 * The GBNF grammar of an answer's first tokens: the call prefix, one of `names` and the params'
 * opening; or any text that is not the start of a call (it leaves the prefix at some character,
 * so a Markdown table starting with `|` is still text); or nothing (the model ends at once).
 */
export function toolChoiceGrammar(syntax: CallSyntax, names: readonly string[]): string {
  if (names.length === 0) throw new RangeError("A tool choice needs at least one tool");
  if (syntax.prefix === "") throw new RangeError("A tool choice needs a call prefix");
  const chars = [...syntax.prefix];
  // Text leaves the prefix at its i-th character: the i characters before it, then another one.
  const leaves = chars.map((char, i) =>
    i === 0
      ? `[^${classChar(char)}]`
      : `${literal(chars.slice(0, i).join(""))} [^${classChar(char)}]`
  );
  return [
    "root ::= call | text | empty",
    `call ::= ${literal(syntax.prefix)} name ${literal(syntax.paramsPrefix)}`,
    `name ::= ${[...names].map(literal).join(" | ")}`,
    `text ::= (${leaves.join(" | ")}) rest`,
    // Any character: the first token of text may hold several.
    "rest ::= [^\\x00]*",
    'empty ::= ""',
  ].join("\n");
}

/**
 * What `text`, the start of an answer generated under `toolChoiceGrammar`, chose; undefined while
 * it may still become a call (a start of the prefix, or of the prefix and a tool's name).
 */
export function firstChoiceOf(
  text: string,
  syntax: CallSyntax,
  names: readonly string[],
): FirstChoice | undefined {
  if (text.length < syntax.prefix.length) {
    return syntax.prefix.startsWith(text) ? undefined : { kind: "text" };
  }
  if (!text.startsWith(syntax.prefix)) return { kind: "text" };
  const rest = text.slice(syntax.prefix.length);
  const opened = names.find((name) => rest.startsWith(name + syntax.paramsPrefix));
  if (opened !== undefined) return { kind: "call", name: opened };
  // The grammar allows no other text after the prefix: a name is still being written.
  return names.some((name) => (name + syntax.paramsPrefix).startsWith(rest))
    ? undefined
    : { kind: "text" };
}

/** A GBNF string literal. */
function literal(text: string): string {
  return JSON.stringify(text);
}

/** One character inside a GBNF character class. */
function classChar(char: string): string {
  if (/[A-Za-z0-9 ]/.test(char)) return char;
  const hex = (char.codePointAt(0) ?? 0).toString(16);
  return hex.length <= 4 ? `\\u${hex.padStart(4, "0")}` : `\\U${hex.padStart(8, "0")}`;
}
