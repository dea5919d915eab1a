/**
 * JSONC text with comments where a reader needs them: objects whose entries may each carry
 * comment lines, laid out one entry per line, and plain values written on one line (`{ "a": 1 }`,
 * as `hooks test --update` writes them) while they fit in `LINE_WIDTH`, so a case reads like the
 * hand-written suites of the examples; a longer object or array is laid out one member per line,
 * by the same rule. Pure.
 */
import { compactJson, LINE_WIDTH } from "../snapshot/jsonc_edit.ts";

export type JsoncNode =
  | { readonly kind: "object"; readonly entries: readonly JsoncEntry[] }
  | { readonly kind: "array"; readonly items: readonly JsoncItem[] }
  | { readonly kind: "value"; readonly value: unknown };

export interface JsoncEntry {
  readonly key: string;
  readonly node: JsoncNode;
  readonly comments?: readonly string[];
}

export interface JsoncItem {
  readonly node: JsoncNode;
  readonly comments?: readonly string[];
}

export const value = (v: unknown): JsoncNode => ({ kind: "value", value: v });
export const object = (entries: readonly JsoncEntry[]): JsoncNode => ({ kind: "object", entries });
export const array = (items: readonly JsoncItem[]): JsoncNode => ({ kind: "array", items });

const INDENT = "  ";

/**
 * The text of `node` at `depth`, its first line not indented (it follows a key); `lead` is how
 * many characters stand before it on its line.
 */
export function renderJsonc(node: JsoncNode, depth = 0, lead = 0): string {
  switch (node.kind) {
    case "value": {
      // A long string alone may exceed the width.
      const text = compactJson(node.value);
      const fits = depth * INDENT.length + lead + text.length + 1 <= LINE_WIDTH;
      const members = fits ? undefined : membersOf(node.value);
      return members === undefined ? text : renderJsonc(members, depth, lead);
    }
    case "object":
      return block("{", "}", node.entries, depth, (entry) => {
        const key = `${JSON.stringify(entry.key)}: `;
        return `${key}${renderJsonc(entry.node, depth + 1, key.length)}`;
      });
    case "array":
      return block("[", "]", node.items, depth, (item) => renderJsonc(item.node, depth + 1));
    default:
      return node satisfies never;
  }
}

/** An object or a non-empty array as a node of its members; undefined for anything else. */
function membersOf(v: unknown): JsoncNode | undefined {
  if (Array.isArray(v)) {
    return v.length === 0 ? undefined : array(v.map((item) => ({ node: value(item) })));
  }
  if (typeof v !== "object" || v === null) return undefined;
  const entries = Object.entries(v).filter(([, item]) => item !== undefined);
  return entries.length === 0
    ? undefined
    : object(entries.map(([key, item]) => ({ key, node: value(item) })));
}

function block<T extends { readonly comments?: readonly string[] }>(
  open: string,
  close: string,
  members: readonly T[],
  depth: number,
  render: (member: T) => string,
): string {
  if (members.length === 0) return `${open}${close}`;
  const inner = INDENT.repeat(depth + 1);
  const lines = members.map((member, i) => {
    const comments = (member.comments ?? []).flatMap((c) => c.split("\n"))
      .map((c) => `${inner}// ${c}`.trimEnd());
    const comma = i < members.length - 1 ? "," : "";
    return [...comments, `${inner}${render(member)}${comma}`].join("\n");
  });
  return `${open}\n${lines.join("\n")}\n${INDENT.repeat(depth)}${close}`;
}

/** Comment text wrapped at about `width` characters, so no comment line runs off the screen. */
export function wrap(text: string, width = 92): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  if (line !== "") lines.push(line);
  return lines.join("\n");
}
