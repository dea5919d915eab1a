/**
 * The value of a node of jsonc-parser's tree, as `JSON.parse` would give it (the last key wins
 * when one repeats), for files whose positions are kept beside their values.
 */
import type { Node } from "jsonc-parser";

export function objectValue(node: Node): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const property of node.children ?? []) {
    const keyNode = property.children?.[0];
    const valueNode = property.children?.[1];
    if (typeof keyNode?.value !== "string" || valueNode === undefined) continue;
    // defineProperty, not assignment: a key named "__proto__" must stay an ordinary key.
    Object.defineProperty(object, keyNode.value, {
      value: nodeValue(valueNode),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return object;
}

export function nodeValue(node: Node): unknown {
  switch (node.type) {
    case "object":
      return objectValue(node);
    case "array":
      return (node.children ?? []).map(nodeValue);
    case "property":
      return undefined;
    case "string":
    case "number":
    case "boolean":
    case "null":
      return node.value;
    default:
      return node.type satisfies never;
  }
}
