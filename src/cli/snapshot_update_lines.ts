/**
 * `hooks test --update` at the command line: the scenario files it rewrites (read as
 * configuration files are, replaced as an editor saves, never through a symlink that leads out
 * of the allowed directories) and the lines that say what it changed and what it left to edit by
 * hand, each with its `file:line` and case.
 */
import { replaceConfinedText } from "../agent/files/confined_write.ts";
import type { ConfinedPlace } from "../os/files/confined_file.ts";
import { readConfigFile } from "../config_file.ts";
import { displayPath } from "../display_path.ts";
import { compactJson } from "../testing/snapshot/jsonc_edit.ts";
import type {
  ScenarioFileAccess,
  SnapshotPlace,
  SnapshotUpdate,
} from "../testing/snapshot/snapshot_update.ts";
import type { CliIo } from "./command_spec.ts";
import { shownPaths } from "./write_place.ts";

/** The scenario files `--update` reads, and writes inside `place` only. */
export function scenarioFiles(
  place: ConfinedPlace,
  io: Pick<CliIo, "cwd" | "env">,
): ScenarioFileAccess {
  return {
    read: (file) => readConfigFile(file),
    write: async (file, text) => {
      const written = await replaceConfinedText(file, text, place, shownPaths(io, file));
      if (!written.ok) throw new Error(written.reason);
    },
  };
}

/** Characters of a value shown in a change line. */
const SHOWN_CHARS = 80;

/** What `--update` prints: each change, then what it left, each with its `file:line` and case. */
export function describeSnapshotUpdate(update: SnapshotUpdate, cwd: string): string {
  const where = (p: SnapshotPlace) =>
    `  ${displayPath(p.file, cwd, undefined)}:${p.line}: "${p.caseName}" ${p.path}`;
  const lines: string[] = [];
  if (update.changes.length > 0) {
    const files = new Set(update.changes.map((c) => c.file)).size;
    lines.push(
      `Updated ${update.changes.length} expectation(s) in ${files} file(s); review them before ` +
        "you commit:",
      ...update.changes.map((c) =>
        `${where(c)}: ${shown(c.from)} → ${
          c.to.kind === "removed" ? "(removed)" : shown(c.to.value)
        }`
      ),
    );
  }
  if (update.left.length > 0) {
    lines.push(
      `Not updated (${update.left.length}), to edit by hand or run again:`,
      ...update.left.map((l) => `${where(l)}: ${l.why}`),
    );
  }
  lines.push(...update.problems);
  return lines.map((line) => line + "\n").join("");
}

function shown(value: unknown): string {
  const text = compactJson(value);
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS - 1)}…` : text;
}
