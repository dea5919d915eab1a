/**
 * What `--explain` shows for one case: for each firing, every registration (matched or not and
 * why), the raw result of each hook that ran, and which hook decided each part of the decision.
 */
import type { ExplainedFiring } from "../scenarios/case_result.ts";
import { displayPath } from "../../display_path.ts";

/** Longest a raw result's text is shown before it is cut. */
const MAX_RESULT_LINES = 12;

export function explainLines(firings: readonly ExplainedFiring[], cwd: string): string[] {
  if (firings.length === 0) return ["no event fired a hook"];
  return firings.flatMap((firing) => {
    const value = firing.matcherValue === null ? "" : ` (matcher value "${firing.matcherValue}")`;
    const out = [`${firing.event}${value}:`];
    if (firing.registrations.length === 0) out.push("  no hook is registered for this event");
    for (const r of firing.registrations) {
      const source = displaySource(r.source, cwd);
      out.push(
        `  ${r.matched ? "matched" : "not matched"}: ${r.summary} (${r.id}, ${source})`,
        `    why: ${r.why}`,
      );
      if (r.result !== undefined) {
        out.push("    result:", ...resultLines(r.result).map((line) => `      ${line}`));
      }
    }
    const decided = Object.entries(firing.decidedBy);
    if (decided.length === 0) {
      out.push("  decided by: no hook (nothing to decide)");
    } else {
      out.push("  decided by:");
      for (const [part, by] of decided) {
        out.push(`    ${part}: ${typeof by === "string" ? by : by.join(", ")}`);
      }
    }
    return out;
  });
}

/** A `file:line` source shown relative to `cwd`; anything else as it is. */
function displaySource(source: string, cwd: string): string {
  return source.startsWith("/") ? displayPath(source, cwd, undefined) : source;
}

/** `key: value` per field; texts over several lines as an indented block. */
function resultLines(result: Readonly<Record<string, unknown>>): string[] {
  return Object.entries(result).flatMap(([key, value]) => {
    if (typeof value === "string" && value.includes("\n")) {
      const lines = value.replace(/\n$/, "").split("\n");
      const shown = lines.slice(0, MAX_RESULT_LINES).map((line) =>
        `  |${line === "" ? "" : " " + line}`
      );
      if (lines.length > MAX_RESULT_LINES) {
        shown.push(`  | … ${lines.length - MAX_RESULT_LINES} more lines`);
      }
      return [`${key}:`, ...shown];
    }
    const shown = typeof value === "string" && value !== "" && value.trim() === value
      ? value
      : JSON.stringify(value) ?? "undefined";
    return [`${key}: ${shown}`];
  });
}
