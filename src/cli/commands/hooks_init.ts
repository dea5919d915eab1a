/**
 * `llama-agent hooks init`: writes `.claude/hooks-tests/<name>.test.jsonc`, a starter suite that
 * passes at once, from the hooks that fire in a directory (src/testing/scaffold/scaffold_suite.ts does
 * the work). It never overwrites a file without `--force`, fires the hooks only in the
 * hermetic places `hooks test` uses, and writes as the agent's file tools do: never through a
 * symlink that leads out of the project (src/agent/files/confined_write.ts).
 */
import { type CliCommand, type CliIo, type CommandSpec, EXIT } from "../command_spec.ts";
import { COMPAT_FLAG } from "../options/compat_flag.ts";
import { CWD_FLAG, fail, startCommand } from "../start_command.ts";
import { displayPath } from "../../display_path.ts";
import { pathExists } from "../../path_exists.ts";
import { confinedWriteRefusal, writeConfinedText } from "../../agent/files/confined_write.ts";
import { shownPaths, writePlace } from "../write_place.ts";
import { SCENARIO_DIR, SCENARIO_SUFFIX } from "../../testing/scenarios/discover_scenarios.ts";
import { scaffoldSuite } from "../../testing/scaffold/scaffold_suite.ts";
import { loadProfileChoice } from "../../hooks/profile_choice.ts";

const spec: CommandSpec = {
  path: ["hooks", "init"],
  summary: "write a starter hooks-test suite from the hooks that fire here",
  description: `Writes <dir>/${SCENARIO_DIR}/<name>${SCENARIO_SUFFIX}: one event case per hook\n` +
    "that fires here, fed a realistic payload (a harmless call, and the dangerous calls a\n" +
    "guard's own script suggests, such as rm -rf / for a script that looks for rm), plus one\n" +
    "session case that drives a tool call through the whole chain. Each expectation is what\n" +
    "the hooks do now: init fires every case twice, hermetically as hooks test does (an empty\n" +
    "HOME, a copy of the project where a hook may write), keeps what both firings agree on,\n" +
    "and checks the file before writing it, so it passes at once. Comments in the file say\n" +
    "what to change. Hooks of $HOME/.claude/settings.json are left out (hooks test runs with\n" +
    "an empty HOME); prompt, agent and http hooks get a comment instead of a case of their\n" +
    "own (http hooks are still sent their requests where other cases match them).\n" +
    "The file is written only inside the launch directory, $HOME and the project, never\n" +
    "through a symlink that leads out of them.\n" +
    "Exit codes: 0 written; 2 nothing to test (no hook fires here), the file exists (use\n" +
    "--force), the path leads out through a symlink, or a usage error.",
  flags: [
    { ...CWD_FLAG, description: "The project whose hooks the suite tests (default: .)" },
    COMPAT_FLAG,
    {
      name: "name",
      type: "string",
      valueName: "NAME",
      description: `The file's name, without ${SCENARIO_SUFFIX} (default: the directory's name)`,
    },
    { name: "force", type: "boolean", description: "Overwrite the file if it exists" },
  ],
  positionals: [],
  examples: [
    "llama-agent hooks init && llama-agent hooks test",
    "llama-agent hooks init --cwd packages/api --name guards",
    "llama-agent hooks init --compat claude   # whatever the hooks name, Claude Code's tools",
    "llama-agent hooks init --force            # start again from what the hooks do now",
  ],
};

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export const hooksInitCommand: CliCommand = {
  spec,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const started = await startCommand(spec, args, io);
    if (!started.ok) return started.exitCode;
    const { invocation } = started;
    const name = suiteName(invocation.flags["name"], invocation.cwd);
    if (!name.ok) return fail(io, name.error).exitCode;
    const file = `${invocation.cwd}/${SCENARIO_DIR}/${name.value}${SCENARIO_SUFFIX}`;
    const shown = displayPath(file, io.cwd, io.env("HOME"));
    if (invocation.flags["force"] !== true && await pathExists(file)) {
      return fail(
        io,
        `"${shown}" exists: pass --force to overwrite it, or --name NAME to write another file`,
      ).exitCode;
    }
    // Said before the hooks are fired, which takes a while; the write checks again.
    const place = await writePlace(io, invocation.cwd);
    const refusal = await confinedWriteRefusal(file, place, shownPaths(io, file));
    if (refusal !== undefined) return fail(io, refusal).exitCode;

    // Decided as the suite's cases will be: from the project's hooks, with an empty HOME.
    const { decision } = await loadProfileChoice(invocation.compat, invocation.cwd, undefined, {
      origin: invocation.compatOrigin,
    });
    const scaffold = await scaffoldSuite({
      projectDir: invocation.cwd,
      profile: decision.profile,
      env: io.env,
    });
    if (!scaffold.ok) return fail(io, scaffold.message).exitCode;
    const written = await writeConfinedText(file, scaffold.text, place, shownPaths(io, file));
    if (!written.ok) return fail(io, written.message).exitCode;

    const cases = `${scaffold.eventCases} event case(s) and ${scaffold.sessionCases} session case`;
    const through = written.written === file
      ? ""
      : ` (written to "${displayPath(written.written, io.cwd, io.env("HOME"))}")`;
    io.stdout(
      `Wrote ${shown}${through}: ${cases}, from the ${scaffold.hooks} hook(s) that fire here` +
        (scaffold.notes.length > 0 ? ` (${scaffold.notes.length} note(s) in its comments)` : "") +
        ".\nEach expectation is what the hooks do now: change it to what they must do.\n" +
        `Next: ${nextCommand(invocation.cwd, io.cwd)}\n`,
    );
    if (scaffold.localHooks > 0) {
      io.stderr(
        `${scaffold.localHooks} of the hooks come from .claude/settings.local.json, which is ` +
          "usually not committed: where it is absent (CI), their cases fail. Move them to " +
          ".claude/settings.json, or remove their cases\n",
      );
    }
    return EXIT.ok;
  },
};

type NameResult = { ok: true; value: string } | { ok: false; error: string };

function suiteName(flag: unknown, cwd: string): NameResult {
  if (typeof flag === "string") {
    const value = flag.endsWith(SCENARIO_SUFFIX) ? flag.slice(0, -SCENARIO_SUFFIX.length) : flag;
    if (NAME.test(value)) return { ok: true, value };
    return {
      ok: false,
      error: `--name must be a file name of letters, digits, ".", "_" and "-", not "${flag}"`,
    };
  }
  const base = cwd.slice(cwd.lastIndexOf("/") + 1).replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[^A-Za-z0-9]+/, "");
  return { ok: true, value: base === "" ? "hooks" : base };
}

function nextCommand(projectDir: string, launchDir: string): string {
  if (projectDir === launchDir) return "llama-agent hooks test";
  const shown = projectDir.startsWith(launchDir + "/")
    ? projectDir.slice(launchDir.length + 1)
    : projectDir;
  return `llama-agent hooks test --cwd ${/^[\w./-]+$/.test(shown) ? shown : JSON.stringify(shown)}`;
}
