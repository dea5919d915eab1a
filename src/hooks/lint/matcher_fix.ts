/**
 * `hooks lint --fix`: rewrites tool matchers that name only the other profile's tools (`Bash`
 * under `llama`) into lists that keep every name written and add this profile's
 * (`Bash|shell`), so one file guards Claude Code and llama-agent alike. Only list matchers are
 * changed, each by replacing exactly its string token: comments, formatting and every other
 * byte stay. A regular expression is the user's to rewrite (lint says so).
 *
 * Where a key repeats, the loader reads only its last value (as `JSON.parse` does), so only the
 * matchers in that value are fixed: the token edited is the one lint reported, never an earlier
 * copy that nothing reads.
 */
import { applyEdits, type Edit, type Node, parseTree } from "jsonc-parser";
import { errorMessage } from "../../error.ts";
import { readConfigFile } from "../../config_file.ts";
import type { CompatProfile } from "../../profile/compat_profile.ts";
import { jsonPointer } from "../diagnostic.ts";
import { HOOK_EVENTS, isHookEventName } from "../event_table.ts";
import { compileMatcher } from "../matching/matcher.ts";
import { toolMatcherProblem } from "./tool_matcher_lint.ts";
import { LineIndex, withoutBom } from "../../text_position.ts";

export interface MatcherFix {
  /** JSON pointer of the matcher, e.g. `/hooks/PreToolUse/0/matcher`. */
  readonly pointer: string;
  /** 1-based line of the matcher in the file as it was. */
  readonly line: number;
  readonly from: string;
  readonly to: string;
}

/** The settings text with every fixable tool matcher rewritten, and what changed. */
export function fixMatchers(
  rawText: string,
  profile: CompatProfile,
): { readonly text: string; readonly fixes: readonly MatcherFix[] } {
  const { bom, body: original } = withoutBom(rawText);
  const lines = new LineIndex(original);
  const tree = parseTree(original, [], { allowTrailingComma: true, disallowComments: false });
  const hooks = tree === undefined ? undefined : keptValue(tree, "hooks");
  if (hooks?.type !== "object") return { text: rawText, fixes: [] };
  const planned: { node: Node; fix: MatcherFix }[] = [];
  for (const event of new Set(propertyKeys(hooks))) {
    const groups = keptValue(hooks, event);
    if (!isHookEventName(event) || groups?.type !== "array") continue;
    if (HOOK_EVENTS[event].matcherField !== "tool_name") continue;
    (groups.children ?? []).forEach((group, index) => {
      const path = ["hooks", event, index, "matcher"];
      const node = keptValue(group, "matcher");
      if (node?.type !== "string" || typeof node.value !== "string") return;
      const from = node.value;
      const compiled = compileMatcher(from);
      if (!compiled.ok || compiled.matcher.kind !== "list") return;
      const to = toolMatcherProblem(from, profile)?.fixed;
      if (to === undefined) return;
      const line = lines.at(node.offset).line;
      planned.push({ node, fix: { pointer: jsonPointer(path), line, from, to } });
    });
  }
  // Each edit replaces exactly the token it was planned from (offsets of the original text).
  const edits: Edit[] = planned.map(({ node, fix }) => ({
    offset: node.offset,
    length: node.length,
    content: JSON.stringify(fix.to),
  }));
  return { text: bom + applyEdits(original, edits), fixes: planned.map((p) => p.fix) };
}

function propertyKeys(object: Node): string[] {
  return (object.children ?? []).flatMap((property) => {
    const key = property.children?.[0]?.value;
    return typeof key === "string" ? [key] : [];
  });
}

/** The value the loader reads for `key`: the last one when the key repeats. */
function keptValue(object: Node, key: string): Node | undefined {
  if (object.type !== "object") return undefined;
  const children = object.children ?? [];
  for (let i = children.length - 1; i >= 0; i--) {
    const [keyNode, value] = children[i]?.children ?? [];
    if (keyNode?.value === key && value !== undefined) return value;
  }
  return undefined;
}

export type FixFileResult =
  | {
    readonly ok: true;
    readonly fixes: readonly MatcherFix[];
    /** The file written (or that would have been): the symlink's target for a symlink. */
    readonly target: string;
  }
  | { readonly ok: false; readonly message: string };

/**
 * Rewrites the file `path` with `text` as an editor saves (replace_file.ts), a symlink's target
 * for a symlink; answers the file written, or throws why not. The command passes one that
 * writes only where it may (src/agent/files/confined_write.ts).
 */
export type ReplaceText = (path: string, text: string) => Promise<string>;

/**
 * Fixes one settings file in place, through `replace`. A file with nothing to fix is not
 * touched.
 */
export async function fixSettingsFile(
  path: string,
  profile: CompatProfile,
  replace: ReplaceText,
): Promise<FixFileResult> {
  try {
    // A symlinked settings file stays a symlink: its target is what is rewritten.
    const target = await Deno.realPath(path);
    const { text, fixes } = fixMatchers(await readConfigFile(target), profile);
    if (fixes.length === 0) return { ok: true, fixes, target };
    return { ok: true, fixes, target: await replace(path, text) };
  } catch (error) {
    return { ok: false, message: `Cannot fix "${path}": ${errorMessage(error)}` };
  }
}
