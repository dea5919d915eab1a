/**
 * A command hook's answer written in the command itself (`echo '{"decision": "block"}'`,
 * `printf '%s\n' '{…}'`), read the way the agent reads the hook's stdout when it runs: JSON that
 * does not parse, output that is invalid for the event (a `hookSpecificOutput` without its
 * `hookEventName`), and fields the event does not read. The same pure functions decide at run
 * time (hook_outcome.ts, decision.ts), so lint and the agent never disagree; only literal words
 * are read, never what a variable or a program prints.
 */
import { combineOutcomes, type OutputRules } from "../decision.ts";
import type { Diagnostic } from "../diagnostic.ts";
import { type EventProfile, type FiredEventName, isFiredEvent } from "../event_table.ts";
import { interpretResult } from "../hook_outcome.ts";
import { finding } from "./lint_finding.ts";
import { registrationId } from "../registration_id.ts";
import { splitShell } from "./script_path_lint.ts";
import type { LoadedHandler } from "../settings/settings_chain.ts";
import type { SettingsFile } from "../settings/settings_file.ts";

/** What each literal JSON answer of a command hook would do wrong on its event. */
export function literalOutputFindings(
  entry: LoadedHandler,
  settings: SettingsFile,
  profile: EventProfile & OutputRules,
): Diagnostic[] {
  const { handler, event } = entry;
  if (handler.type !== "command" || handler.args !== undefined) return [];
  if (!isFiredEvent(event, profile)) return [];
  const out: Diagnostic[] = [];
  const pointer = entry.source.pointer + "/command";
  for (const printed of literalOutputs(handler.command)) {
    for (const problem of outputProblems(entry, event, printed, profile)) {
      out.push(finding(settings, pointer, "LINT_OUTPUT_IGNORED", problem));
    }
  }
  return out;
}

/** The problems the agent would find in `stdout` as the answer of this hook on `event`. */
function outputProblems(
  entry: LoadedHandler,
  event: FiredEventName,
  stdout: string,
  rules: OutputRules,
): string[] {
  const registration = { ...entry, id: registrationId(entry.source), order: 0 };
  const outcome = interpretResult(event, registration, {
    kind: "exited",
    exitCode: 0,
    signal: null,
    stdout: { text: stdout, discardedBytes: 0 },
    stderr: { text: "", discardedBytes: 0 },
    durationMs: 0,
  });
  if (outcome.kind === "error") {
    return [`The answer it prints cannot be used on "${event}": ${outcome.detail}`];
  }
  const decision = combineOutcomes(event, [outcome], rules);
  return decision.unread.map((unread) =>
    `Part of the answer it prints has no effect on "${event}": ${unread.text}`
  );
}

/** `echo` options, which are not printed. */
const ECHO_OPTION = /^-[neE]+$/;

/**
 * What the command prints as literal text that starts with `{`: each `echo` (its words joined by
 * spaces) and each `printf` whose format prints one argument as it is (`'%s'`, `'%s\n'`) or has
 * no conversion at all. Words only known at run time make the output unknown, and it is skipped.
 */
function literalOutputs(command: string): string[] {
  const printed: string[] = [];
  for (const words of splitShell(command)) {
    const [program, ...args] = words;
    if (program === undefined || program.dynamic) continue;
    let text: string | undefined;
    if (program.text === "echo") {
      const shown = args.filter((w, i) => !(i === 0 && !w.dynamic && ECHO_OPTION.test(w.text)));
      if (shown.every((w) => !w.dynamic)) text = shown.map((w) => w.text).join(" ");
    } else if (program.text === "printf" && args.every((w) => !w.dynamic)) {
      const [format, first] = args;
      if (format !== undefined && /^%s(\\n)?$/.test(format.text) && first !== undefined) {
        text = first.text;
      } else if (format !== undefined && args.length === 1 && !format.text.includes("%")) {
        text = format.text.replaceAll("\\n", "\n").replaceAll("\\t", "\t");
      }
    }
    if (text !== undefined && text.trimStart().startsWith("{")) printed.push(text);
  }
  return printed;
}
