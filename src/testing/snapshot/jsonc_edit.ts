/**
 * Text edits of a JSONC document at a JSON pointer: the span of the value a pointer names, and
 * replacing a value or removing a property, each touching only that span (and the
 * comma beside it), so comments, blank lines and the formatting of everything else stay byte for
 * byte. `hooks test --update` rewrites expectations this way rather than re-serialising the file.
 *
 * Positions come from jsonc-parser's tree (the reader the scenario and settings loaders use).
 * Where a key repeats, the last one is the one edited: it is the one the loader reads, as
 * `JSON.parse` does. A value written is laid out as the project's files are: on one line when it
 * fits in `LINE_WIDTH` columns (`{ "a": 1 }`, `[1, 2]`), else one entry a line, indented one
 * step (the file's own step) deeper than the line it starts on.
 */
import { type Node, type ParseError, parseTree } from "jsonc-parser";
import { LineIndex, withoutBom } from "../../text_position.ts";

/** A range of the text: `offset` and `length` in UTF-16 code units, as the string indexes. */
export interface Span {
  readonly offset: number;
  readonly length: number;
}

export type EditResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly message: string };

/** The widest line a written value may make, as `deno fmt` is set for this project. */
export const LINE_WIDTH = 100;

const LENIENT = { disallowComments: false, allowTrailingComma: true, allowEmptyContent: true };

/** The parsed document, or undefined when the text is not JSONC. A byte order mark is skipped. */
export function parseJsonc(text: string): Node | undefined {
  const errors: ParseError[] = [];
  const root = parseTree(withoutBom(text).body, errors, LENIENT);
  return errors.length === 0 ? root : undefined;
}

/** The node a JSON pointer names ("" for the root), or undefined when the document lacks it. */
export function nodeAt(root: Node, pointer: string): Node | undefined {
  let node: Node | undefined = root;
  for (const segment of pointerSegments(pointer)) {
    if (node?.type === "object") {
      node = lastProperty(node, segment)?.children?.[1];
    } else if (node?.type === "array" && /^(0|[1-9][0-9]*)$/.test(segment)) {
      node = node.children?.[Number(segment)];
    } else {
      return undefined;
    }
  }
  return node;
}

/** The span of the value at `pointer` in `text` (a byte order mark counted), if it is there. */
export function valueSpan(text: string, pointer: string): Span | undefined {
  const { bom, body } = withoutBom(text);
  const root = parseJsonc(body);
  const node = root === undefined ? undefined : nodeAt(root, pointer);
  return node === undefined ? undefined : { offset: bom.length + node.offset, length: node.length };
}

/**
 * The 1-based line of the value at `pointer` (of its key, for a property). `root` is `text`
 * parsed, for a caller that has it already.
 */
export function lineOfPointer(
  text: string,
  pointer: string,
  root: Node | undefined = parseJsonc(text),
): number | undefined {
  const { bom } = withoutBom(text);
  const node = root === undefined ? undefined : nodeAt(root, pointer);
  if (node === undefined) return undefined;
  const start = node.parent?.type === "property" ? node.parent.offset : node.offset;
  return new LineIndex(text).at(bom.length + start).line;
}

/**
 * Replaces the value at `pointer` (which must exist) with `value`. A value inside a one-line
 * object or array stays on that line, however wide: breaking it there would leave the
 * surrounding entries oddly laid out, which is `deno fmt`'s to mend.
 */
export function replaceValue(text: string, pointer: string, value: unknown): EditResult {
  return edit(text, pointer, (body, node) => {
    const line = lineStartOf(body, node.offset);
    const entry = node.parent?.type === "property" ? node.parent : node;
    const wasMultiLine = body.slice(node.offset, node.offset + node.length).includes("\n");
    const written = startsLine(body, entry.offset)
      ? formatValue(value, {
        indent: indentationAt(body, line),
        step: indentStep(body),
        column: node.offset - line,
        expand: wasMultiLine,
      })
      : compactJson(value);
    return [{ offset: node.offset, length: node.length, content: written }];
  });
}

/**
 * Removes the property at `pointer` (a key of an object) with its comma. A property alone on its
 * lines goes with those lines (and a comment that ends its last line); comments on lines of
 * their own above it stay.
 */
export function removeProperty(text: string, pointer: string): EditResult {
  return edit(text, pointer, (body, node) => {
    const property = node.parent;
    const object = property?.parent;
    if (property?.type !== "property" || object?.type !== "object") {
      return `"${pointer}" is not a property of an object`;
    }
    const siblings = object.children ?? [];
    const index = siblings.indexOf(property);
    const next = siblings[index + 1];
    const previous = siblings[index - 1];
    const end = property.offset + property.length;
    const trailingComma = commaIn(body, end, next?.offset ?? object.offset + object.length - 1);
    const afterComma = trailingComma === undefined ? end : trailingComma + 1;
    const edits: TextEdit[] = [];
    if (startsLine(body, property.offset) && endsLine(body, afterComma)) {
      const from = lineStartOf(body, property.offset);
      edits.push({ offset: from, length: nextLineStart(body, afterComma) - from, content: "" });
      // The last property leaves the comma after the one before it dangling.
      if (trailingComma === undefined && previous !== undefined) {
        const comma = commaIn(body, previous.offset + previous.length, property.offset);
        if (comma !== undefined) edits.push({ offset: comma, length: 1, content: "" });
      }
    } else if (next !== undefined) {
      edits.push({ offset: property.offset, length: next.offset - property.offset, content: "" });
    } else if (previous !== undefined) {
      const from = previous.offset + previous.length;
      edits.push({ offset: from, length: end - from, content: "" });
    } else {
      // The only property: the object becomes `{}`, whatever comments it held.
      const inside = object.offset + 1;
      edits.push({
        offset: inside,
        length: object.offset + object.length - 1 - inside,
        content: "",
      });
    }
    return edits;
  });
}

export interface FormatOptions {
  /** The indentation of the line the value starts on. */
  readonly indent: string;
  /** One level of indentation. */
  readonly step: string;
  /** The column the value starts at (0-based), for the width check. */
  readonly column: number;
  /** Lay a non-empty object or array out one entry a line even when it fits on one. */
  readonly expand?: boolean;
}

/** `value` as JSON laid out in the project's style (see the module comment). */
export function formatValue(value: unknown, options: FormatOptions): string {
  const compact = compactJson(value);
  const container = typeof value === "object" && value !== null;
  const empty = compact === "{}" || compact === "[]";
  const fits = options.column + compact.length <= LINE_WIDTH;
  if (!container || empty || (fits && options.expand !== true)) return compact;
  const inner = options.indent + options.step;
  const entries = Array.isArray(value)
    ? value.map((item) =>
      inner + formatValue(item, { indent: inner, step: options.step, column: inner.length })
    )
    : definedEntries(value).map(([k, v]) =>
      inner + property(k, v, inner, options.step, inner.length)
    );
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  return `${open}\n${entries.join(",\n")}\n${options.indent}${close}`;
}

/**
 * One line, spaced as `deno fmt` spaces JSON: `{ "a": [1, 2] }`. A property whose value is
 * undefined is left out, as `JSON.stringify` leaves it out.
 */
export function compactJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(compactJson).join(", ")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = definedEntries(value);
    if (entries.length === 0) return "{}";
    return `{ ${entries.map(([k, v]) => `${JSON.stringify(k)}: ${compactJson(v)}`).join(", ")} }`;
  }
  return JSON.stringify(value) ?? "null";
}

function definedEntries(value: object): [string, unknown][] {
  return Object.entries(value).filter(([, v]) => v !== undefined);
}

/** `/cases/0/a~1b` → `["cases", "0", "a/b"]`. */
export function pointerSegments(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer.slice(1).split("/").map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
}

interface TextEdit {
  readonly offset: number;
  readonly length: number;
  readonly content: string;
}

/** Finds the node, plans edits on the text without its byte order mark, applies them. */
function edit(
  text: string,
  pointer: string,
  plan: (body: string, node: Node) => TextEdit[] | string,
): EditResult {
  const { bom, body } = withoutBom(text);
  const root = parseJsonc(body);
  if (root === undefined) return { ok: false, message: "The text is not valid JSONC" };
  const node = nodeAt(root, pointer);
  if (node === undefined) return { ok: false, message: `Nothing at "${pointer}"` };
  const edits = plan(body, node);
  if (typeof edits === "string") return { ok: false, message: edits };
  let result = body;
  for (const e of [...edits].sort((a, b) => b.offset - a.offset)) {
    result = result.slice(0, e.offset) + e.content + result.slice(e.offset + e.length);
  }
  return { ok: true, text: bom + result };
}

function property(key: string, value: unknown, indent: string, step: string, column: number) {
  const name = `${JSON.stringify(key)}: `;
  return name + formatValue(value, { indent, step, column: column + name.length });
}

function lastProperty(object: Node, key: string): Node | undefined {
  const children = object.children ?? [];
  for (let i = children.length - 1; i >= 0; i--) {
    const candidate = children[i];
    if (candidate?.children?.[0]?.value === key && candidate.children[1] !== undefined) {
      return candidate;
    }
  }
  return undefined;
}

/**
 * The offset of the comma in `[from, to)`, a stretch between two tokens that holds only
 * whitespace, comments and at most one comma.
 */
function commaIn(text: string, from: number, to: number): number | undefined {
  let i = from;
  while (i < to) {
    if (text.startsWith("//", i)) {
      const end = text.slice(i, to).search(/[\r\n]/);
      i = end === -1 ? to : i + end;
    } else if (text.startsWith("/*", i)) {
      const end = text.indexOf("*/", i + 2);
      i = end === -1 ? to : end + 2;
    } else if (text[i] === ",") return i;
    else i++;
  }
  return undefined;
}

function lineStartOf(text: string, offset: number): number {
  let i = offset;
  while (i > 0 && text[i - 1] !== "\n" && text[i - 1] !== "\r") i--;
  return i;
}

/** The offset of the line break that ends the line `offset` is on (or the text's end). */
function endOfLine(text: string, offset: number): number {
  const found = text.slice(offset).search(/[\r\n]/);
  return found === -1 ? text.length : offset + found;
}

function nextLineStart(text: string, offset: number): number {
  const end = endOfLine(text, offset);
  if (text.startsWith("\r\n", end)) return end + 2;
  return end < text.length ? end + 1 : end;
}

function indentationAt(text: string, lineStart: number): string {
  return /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? "";
}

/** Only whitespace before `offset` on its line. */
function startsLine(text: string, offset: number): boolean {
  return text.slice(lineStartOf(text, offset), offset).trim() === "";
}

/** Only whitespace, or a `//` comment, after `offset` on its line. */
function endsLine(text: string, offset: number): boolean {
  const rest = text.slice(offset, endOfLine(text, offset)).trim();
  return rest === "" || rest.startsWith("//");
}

/** The file's indentation step: that of its first indented line, else two spaces. */
function indentStep(text: string): string {
  return /^([ \t]+)\S/m.exec(text)?.[1] ?? "  ";
}
