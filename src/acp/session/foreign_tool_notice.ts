/**
 * Told once when a session starts: how many of its hooks can never run under the agent's
 * profile, because their matchers or `if` rules name tools it does not offer (a settings file
 * written for Claude Code, under profile `llama`), and what to do: switch profile, run
 * `hooks lint --fix` where it rewrites one of them, or make the edits it leaves by hand. Without it such a hook just
 * never fires, and a guard the user relies on is silently off.
 */
import {
  neverRunningRegistrations,
  type NeverRuns,
} from "../../hooks/lint/foreign_tool_references.ts";
import { andList } from "../../hooks/lint/profile_name_lint.ts";
import type { Registration } from "../../hooks/registration.ts";
import type { SessionHooks } from "../../hooks/session_hooks.ts";
import type { CompatProfile } from "../../profile/compat_profile.ts";

const EXAMPLES = 3;

/** The notice for a session's hooks, or undefined when every hook can run. */
export function foreignToolNotice(
  hooks: SessionHooks,
  profile: CompatProfile,
  cwd: string,
): string | undefined {
  const never = neverRunningRegistrations(hooks.registry, profile);
  if (never.length === 0) return undefined;
  const foreign = never.filter(({ why }) => why.foreign);
  const examples = [
    ...new Set(
      (foreign.length > 0 ? foreign : never).map(({ entry, why }) =>
        why.cause === "matcher"
          ? `matcher "${entry.matcherSource ?? ""}"`
          : `"if": "${entry.ifRule?.source ?? ""}"`
      ),
    ),
  ];
  const shown = examples.slice(0, EXAMPLES).join(", ") +
    (examples.length > EXAMPLES ? `, and ${examples.length - EXAMPLES} more` : "");
  const files = [...new Set(never.map(({ entry }) => `"${relative(entry.source.file, cwd)}"`))]
    .join(", ");
  const count = never.length === 1 ? "1 hook never runs" : `${never.length} hooks never run`;
  const head = `${count} in this session (${shown}, in ${files})`;
  const rest = never.length - foreign.length;
  const others = rest === 0
    ? ""
    : `; "llama-agent hooks lint" says why the other ${rest === 1 ? "one does" : `${rest} do`} not`;
  if (foreign.length === 0) {
    const what = never.length === 1
      ? 'its matcher or "if" can'
      : 'their matchers or "if" rules can';
    return `${head}: ${what} never hold here; run "llama-agent hooks lint" to see why`;
  }
  const llama = profile.id === "llama";
  const why = llama
    ? `they name Claude Code's tools, and llama-agent offers its own (shell, fs_read, ` +
      `fs_write, ...); start llama-agent with --compat claude to offer Claude Code's tool names`
    : `they name llama-agent's own tools, and --compat claude offers Claude Code's ` +
      `(Bash, Read, Write, ...); start llama-agent without --compat claude`;
  return `${head}: ${why}${remedy(foreign, llama)}${others}`;
}

/**
 * What the user can do besides switching profile: `hooks lint --fix`, named only when it
 * rewrites at least one of these matchers, and the edits it leaves to them.
 */
function remedy(
  foreign: readonly { readonly entry: Registration; readonly why: NeverRuns }[],
  llama: boolean,
): string {
  const fix = llama
    ? '"llama-agent hooks lint --fix"'
    : '"llama-agent hooks lint --compat claude --fix"';
  const names = llama ? "llama-agent's names" : "Claude Code's names";
  const edits = [
    ...new Set(
      foreign.filter(({ why }) => !why.fixable).map(({ entry, why }) =>
        why.translated !== undefined
          ? `write "${why.translated}" for "${entry.ifRule?.source ?? ""}"`
          : `make matcher "${entry.matcherSource ?? ""}" also match ${names}`
      ),
    ),
  ];
  const byHand = edits.length <= EXAMPLES
    ? andList(edits)
    : `${edits.slice(0, EXAMPLES).join(", ")}, and ${edits.length - EXAMPLES} more`;
  if (!foreign.some(({ why }) => why.fixable)) return `, or change them by hand: ${byHand}`;
  const run = `, or run ${fix} to add ${names} to the matchers`;
  return edits.length === 0 ? run : `${run} and change the rest by hand: ${byHand}`;
}

function relative(file: string, cwd: string): string {
  const root = cwd.replace(/\/+$/, "");
  return file.startsWith(root + "/") ? file.slice(root.length + 1) : file;
}
