/**
 * `hooks lint --strict`, for CI: a warning that a hook never fires (or never sees its tool) in
 * the profile the session gets becomes an error, so a guard that is silently off fails the build.
 * These are the findings a change of profile or of the hook's tool names would cure: a tool
 * matcher or an `if` that never matches, a `tool_name` check against the other profile's names,
 * and an event the other profile fires. An event llama-agent never fires in any profile
 * (`SubagentStop`) stays a warning: no profile runs it, so nothing here could.
 */
import type { Diagnostic, DiagnosticCode } from "../diagnostic.ts";
import { isProfileEvent } from "../event_table.ts";

const NEVER_FIRES: ReadonlySet<DiagnosticCode> = new Set([
  "LINT_TOOL_NEVER_MATCHES",
  "LINT_IF_FOREIGN_TOOL",
  "LINT_IF_NEVER_MATCHES",
  "LINT_TOOL_NAME_CHECK_FOREIGN",
]);

/** The findings with every "never fires here" warning made an error. Pure. */
export function strictFindings(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return diagnostics.map((d) =>
    d.severity === "warning" && neverFiresHere(d) ? { ...d, severity: "error" } : d
  );
}

function neverFiresHere(d: Diagnostic): boolean {
  if (NEVER_FIRES.has(d.code)) return true;
  // `/hooks/<event>`: the finding is about the whole event.
  const event = /^\/hooks\/([^/]+)$/.exec(d.pointer)?.[1];
  return d.code === "LINT_EVENT_NEVER_FIRES" && event !== undefined && isProfileEvent(event);
}
