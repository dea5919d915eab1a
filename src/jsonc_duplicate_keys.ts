/**
 * Keys given twice in one object of a JSON or JSONC document, at any depth. `JSON.parse` (and a
 * reader that takes the last property) keeps the last value without a word, so in a file that
 * sets a guard a second key can silently undo the first: the files that set the agent's own
 * policy (the user config file, `--rules`) refuse them, naming both lines.
 */
import type { Node } from "jsonc-parser";

export interface DuplicateKey {
  readonly key: string;
  /** Where the repeated key is: the path of its object, then the key. */
  readonly path: readonly (string | number)[];
  /** The offset of the property that gave the key first. */
  readonly firstOffset: number;
  /** The offset of the property that gives it again. */
  readonly againOffset: number;
}

/** Every repetition of a key in `root` (a jsonc-parser tree), in document order. */
export function duplicateKeys(root: Node | undefined): DuplicateKey[] {
  const found: DuplicateKey[] = [];
  const visit = (node: Node, path: readonly (string | number)[]) => {
    if (node.type === "array") {
      (node.children ?? []).forEach((child, index) => visit(child, [...path, index]));
      return;
    }
    if (node.type !== "object") return;
    const first = new Map<string, number>();
    for (const property of node.children ?? []) {
      const [keyNode, value] = property.children ?? [];
      if (keyNode === undefined || typeof keyNode.value !== "string") continue;
      const key = keyNode.value;
      const earlier = first.get(key);
      if (earlier === undefined) first.set(key, property.offset);
      else {
        found.push({
          key,
          path: [...path, key],
          firstOffset: earlier,
          againOffset: property.offset,
        });
      }
      if (value !== undefined) visit(value, [...path, key]);
    }
  };
  if (root !== undefined) visit(root, []);
  return found;
}
