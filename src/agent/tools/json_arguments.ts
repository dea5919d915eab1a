/**
 * A tool call's arguments as a model may send them: an object, or JSON text standing for one
 * (some models and servers send the arguments as a string). Text that is not JSON is said to be
 * so, with the parser's words and where it stopped, so the model can mend its call; it is never
 * passed on as if the model had meant a string.
 */

export type DecodedArguments =
  | { readonly ok: true; readonly value: unknown }
  /** The text is not JSON: the parser's message, with the position it stopped at. */
  | { readonly ok: false; readonly problem: string };

/**
 * The value `raw` stands for: itself unless it is a string, else the JSON it holds. A string
 * holding the JSON text of an object once more (encoded twice) is decoded twice.
 */
export function decodeArguments(raw: unknown): DecodedArguments {
  if (typeof raw !== "string") return { ok: true, value: raw };
  const parsed = parseJson(raw);
  if (!parsed.ok) return parsed;
  if (typeof parsed.value === "string") {
    const inner = parseJson(parsed.value);
    if (inner.ok && isJsonObject(inner.value)) return inner;
  }
  return parsed;
}

/** A plain JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseJson(text: string): DecodedArguments {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, problem: jsonSyntaxProblem(text, error) };
  }
}

/** V8's words for a token it did not expect: they quote the text but do not say where. */
const UNEXPECTED_TOKEN = /^Unexpected token '(.*?)', /s;

/**
 * What is wrong with `text` as JSON: the parser's message, with ` (at position N, line L column
 * C)` added where the message does not say where (V8 says it for most problems, not for an
 * unexpected token nor for the end of the text).
 */
export function jsonSyntaxProblem(text: string, error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).trim();
  if (/ at position \d+/.test(message)) return message;
  const position = message === "Unexpected end of JSON input"
    ? text.length
    : unexpectedTokenAt(text, message);
  if (position === undefined) return message;
  const before = text.slice(0, position).split("\n");
  const line = before.length;
  const column = before.at(-1)!.length + 1;
  return `${message} (at position ${position}, line ${line} column ${column})`;
}

/**
 * Where V8's unexpected token is: the parser reads from the left and stops at the first bad
 * character, so every prefix that holds that character fails on the same token and no shorter
 * one does. The shortest such prefix ends just after it.
 */
function unexpectedTokenAt(text: string, message: string): number | undefined {
  const token = UNEXPECTED_TOKEN.exec(message)?.[1];
  if (token === undefined) return undefined;
  const failsOnToken = (length: number) => {
    try {
      JSON.parse(text.slice(0, length));
      return false;
    } catch (error) {
      return error instanceof Error && UNEXPECTED_TOKEN.exec(error.message)?.[1] === token;
    }
  };
  if (!failsOnToken(text.length)) return undefined;
  let low = 1;
  let high = text.length;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (failsOnToken(middle)) high = middle;
    else low = middle + 1;
  }
  return low - 1;
}
