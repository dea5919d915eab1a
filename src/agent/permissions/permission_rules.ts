/**
 * The rules file of the `rule-based` permission mode (`--rules FILE`), JSON:
 *
 *     {"rules": [{"tool": "shell", "decision": "deny"}, {"tool": "fs_.*", "decision": "allow"}]}
 *
 * `tool` is a matcher read exactly as a hooks matcher (src/hooks/matching/matcher.ts), tested against the
 * tool's names: for a built-in tool every name its capability has in either profile (a rule
 * about `shell` holds for `terminal` and `Bash` too, so no other name walks around a deny), for
 * an MCP tool its `mcp__<server>__<tool>` name: `"*"` matches every tool, `shell|terminal` is a
 * list of names, `mcp__github__.*` a regular expression. The first rule that matches decides, so
 * a file reads top to bottom like a firewall: put the exceptions before the general rules. No
 * rule matching means "ask".
 *
 * The file is strict (an unknown key is an error, and so is a key given twice, where
 * `JSON.parse` would keep the last: `{"tool": "shell", "decision": "deny", "decision": "allow"}`
 * reads as a deny and is an allow) because a typo in a permission rule should stop the agent
 * from starting rather than silently allow or deny the wrong thing.
 */
import { parseTree } from "jsonc-parser";
import { z } from "zod";
import { readConfigFile } from "../../config_file.ts";
import { duplicateKeys } from "../../jsonc_duplicate_keys.ts";
import { LineIndex } from "../../text_position.ts";
import { jsonPointer } from "../../hooks/diagnostic.ts";
import { compileMatcher, type Matcher, matches } from "../../hooks/matching/matcher.ts";
import { errorMessage } from "../../error.ts";

export const RULE_DECISIONS = ["allow", "ask", "deny"] as const;
export type RuleDecision = (typeof RULE_DECISIONS)[number];

export interface PermissionRule {
  /** The matcher as written in the file, for messages. */
  readonly tool: string;
  readonly matcher: Matcher;
  readonly decision: RuleDecision;
}

const RuleEntry = z.strictObject({
  tool: z.string({ error: '"tool" is required and must be a string (a tool-name matcher)' }),
  decision: z.enum(RULE_DECISIONS, {
    error: '"decision" must be one of "allow", "ask", "deny"',
  }),
}, { error: 'a rule must be an object with "tool" and "decision"' });

const RulesFile = z.strictObject({
  rules: z.array(RuleEntry, { error: '"rules" must be an array of rules' }),
}, { error: 'the file must hold an object with a "rules" array' });

export type LoadedRules =
  | { readonly ok: true; readonly rules: readonly PermissionRule[] }
  /** One whole sentence per problem, naming the file and the JSON pointer. */
  | { readonly ok: false; readonly errors: readonly string[] };

/** Reads and checks a rules file. */
export async function loadPermissionRules(path: string): Promise<LoadedRules> {
  let text: string;
  try {
    text = await readConfigFile(path);
  } catch (error) {
    const reason = error instanceof Deno.errors.NotFound ? "no such file" : errorMessage(error);
    return { ok: false, errors: [`Cannot load permission rules from "${path}": ${reason}`] };
  }
  return parsePermissionRules(text, path);
}

/** Checks the text of a rules file; `file` is only used in messages. */
export function parsePermissionRules(text: string, file: string): LoadedRules {
  const problem = (detail: string, pointer = "") =>
    `Cannot load permission rules from "${file}": ${detail}${pointer ? ` at ${pointer}` : ""}`;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, errors: [problem(`invalid JSON: ${errorMessage(error)}`)] };
  }
  const duplicates = duplicateKeys(parseTree(text));
  if (duplicates.length > 0) {
    const lines = new LineIndex(text);
    return {
      ok: false,
      errors: duplicates.map(({ key, path, firstOffset, againOffset }) =>
        problem(
          `"${key}" is given twice, at lines ${lines.at(firstOffset).line} and ` +
            `${lines.at(againOffset).line}; keep one (the second would silently replace the first)`,
          jsonPointer(path),
        )
      ),
    };
  }
  const parsed = RulesFile.safeParse(json);
  if (!parsed.success) {
    return {
      ok: false,
      errors: parsed.error.issues.map((issue) => {
        const segments = issue.path.filter((s) => typeof s === "string" || typeof s === "number");
        const detail = issue.code === "unrecognized_keys"
          ? `unknown ${issue.keys.length === 1 ? "key" : "keys"} ${
            issue.keys.map((key) => `"${key}"`).join(", ")
          }`
          : issue.message;
        return problem(detail, jsonPointer(segments));
      }),
    };
  }
  const rules: PermissionRule[] = [];
  const errors: string[] = [];
  parsed.data.rules.forEach((entry, index) => {
    const compiled = compileMatcher(entry.tool);
    if (compiled.ok) {
      rules.push({ tool: entry.tool, matcher: compiled.matcher, decision: entry.decision });
    } else errors.push(problem(compiled.reason, jsonPointer(["rules", index, "tool"])));
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, rules };
}

/**
 * The decision of the first rule matching one of the call's names, or undefined when none does.
 * A built-in tool's names are all its capability's (namesOfCapability), an MCP tool's its own.
 */
export function ruleDecision(
  rules: readonly PermissionRule[],
  names: string | readonly string[],
): RuleDecision | undefined {
  const all = typeof names === "string" ? [names] : names;
  return rules.find((rule) => all.some((name) => matches(rule.matcher, name)))?.decision;
}
