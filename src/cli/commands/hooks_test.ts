/**
 * `llama-agent hooks test [PATHS...]`: runs a repository's scenario files against its real hooks,
 * hermetically, and reports each case. Invalid scenario files are reported first and the valid
 * ones still run; the exit code says which of the three things happened.
 */
import { COMPAT_FLAG, compatProfileFromFlags } from "../options/compat_flag.ts";
import { type CliCommand, type CliIo, type CommandSpec, EXIT } from "../command_spec.ts";
import { parseCommandLine, renderHelp } from "../parse_command_line.ts";
import { PLUGIN_DIR_FLAG, resolvePluginDirs } from "../options/plugin_dir_flag.ts";
import { resolveCwd } from "../resolve_cwd.ts";
import { CWD_FLAG, fail } from "../start_command.ts";
import { resolve } from "node:path";
import { describeSnapshotUpdate, scenarioFiles } from "../snapshot_update_lines.ts";
import { writePlace } from "../write_place.ts";
import { watchLoop } from "./hooks_test_watch.ts";
import type { ProfileSetting } from "../../profile/compat_profile.ts";
import type { CaseResult } from "../../testing/scenarios/case_result.ts";
import {
  discoverScenarios,
  SCENARIO_DIR,
  SCENARIO_SUFFIX,
} from "../../testing/scenarios/discover_scenarios.ts";
import { problemLine } from "../../testing/reporters/problem_line.ts";
import { REPORTER_NAMES, type ReporterName, REPORTERS } from "../../testing/reporters/reporters.ts";
import { runScenarios } from "../../testing/runner/run_scenarios.ts";
import type { RunResult } from "../../testing/scenarios/scenario_run.ts";
import { parseShard, reportsProblems, type Shard } from "../../testing/scenarios/case_shard.ts";
import { caseKey, updateSnapshots } from "../../testing/snapshot/snapshot_update.ts";

const spec: CommandSpec = {
  path: ["hooks", "test"],
  summary: "check the hooks against scenario files, hermetically (for CI)",
  description:
    `Runs every case of the scenario files (*${SCENARIO_SUFFIX}) under <dir>/${SCENARIO_DIR},\n` +
    "or in the files and directories given, against the merged settings of <dir>: event cases\n" +
    "fire one event, session cases drive the agent with a scripted client and model. Hooks run\n" +
    "in a hermetic environment (an empty HOME, a fixed TZ and LANG, only PATH, USER, LOGNAME and\n" +
    "SHELL from outside). Session cases run in a temporary copy of the project, and the\n" +
    "model's shell commands are answered from the scenario, not run, unless the case sets\n" +
    '"execute". Cases run in parallel, up to the core count. Ctrl-C stops the running cases,\n' +
    "removes their temporary places and reports them (exit 130).\n" +
    "\n" +
    'A scenario (or a case) may name "pluginDirs": Claude Code plugin directories, relative to\n' +
    "the scenario file, whose hooks load as with --plugin-dir (claude profile only). Each is\n" +
    "copied into the case's place, so the real one is never written, and CLAUDE_PLUGIN_DATA\n" +
    "lies in the case's HOME. --plugin-dir adds plugin dirs to every case whose profile is\n" +
    "claude or decided (auto), after its scenario's own.\n" +
    "\n" +
    "A case's profile is its \"compat\", else its file's, else --compat; with none (auto, the\n" +
    "default) each case decides from the hooks of its place as a session would: claude when\n" +
    "they name Claude Code's tools and none of llama-agent's (plugin dirs count for claude),\n" +
    "else llama.\n" +
    "\n" +
    "--update rewrites the expect of each failing case to what was observed, editing only the\n" +
    "values that failed (comments and formatting stay), and lists every change (file:line) and\n" +
    "every failure it left to edit by hand (a hook reference that names no hook, notMatched,\n" +
    "timedOut, modelSaw, modelNeverSaw, evaluatorSaw, evaluatorNeverSaw). Review the changes\n" +
    "before you commit them. Only the cases that ran are updated (--filter, --shard); passing\n" +
    "cases and cases that could not run are not touched.\n" +
    "A failed case whose every failure was updated counts as passed in the exit code.\n" +
    "\n" +
    "--watch runs the files, then again those a change affects (a scenario, a settings file\n" +
    "of the chain, a script a hook names), until Ctrl-C; on a terminal it clears the screen\n" +
    "before each run.\n" +
    "\n" +
    "Invalid scenario files are reported first (file:line:column) and the valid files still\n" +
    "run; a case the schema refuses is an error at its line, and the rest of its file runs.\n" +
    "Exit codes: 0 every case passed; 1 a case failed; 2 invalid input (an invalid\n" +
    "scenario file, a case that could not run, no scenario files, no case matching --filter,\n" +
    "or a usage error).",
  flags: [
    { ...CWD_FLAG, description: "The repository whose hooks are tested (default: .)" },
    COMPAT_FLAG,
    PLUGIN_DIR_FLAG,
    {
      name: "reporter",
      type: "string",
      valueName: "NAME",
      description: "default, tap, junit, json, or github (workflow annotations)",
      choices: REPORTER_NAMES,
    },
    {
      name: "filter",
      type: "string",
      valueName: "TEXT",
      description:
        'Only cases whose name (or "file > name") contains TEXT or matches it as a regex',
    },
    {
      name: "explain",
      type: "boolean",
      description: "Per case: every registration (matched or not, why), raw results, who decided",
    },
    { name: "bail", type: "boolean", description: "Start no more cases after the first failure" },
    {
      name: "shard",
      type: "string",
      valueName: "I/N",
      description:
        "Run the I-th of N slices of the cases, for a CI matrix (invalid files: shard 1 reports them)",
    },
    {
      name: "update",
      type: "boolean",
      description: "Rewrite the expect of failing cases to what was observed, and list the changes",
    },
    {
      name: "watch",
      type: "boolean",
      description: "Rerun the affected files when a scenario, a settings file of the chain or a " +
        "script a hook names changes (Ctrl-C stops)",
    },
  ],
  positionals: [{
    name: "PATHS...",
    description: `Scenario files or directories (default: ${SCENARIO_DIR})`,
    required: false,
  }],
  examples: [
    "llama-agent hooks test",
    'llama-agent hooks test .claude/hooks-tests/guard.test.jsonc --filter "rm -rf" --explain',
    "llama-agent hooks test --reporter junit > hooks-tests.xml",
    "llama-agent hooks test --reporter github   # in a GitHub Actions step",
    "llama-agent hooks test --compat claude --plugin-dir ~/plugins/my-plugin",
    "llama-agent hooks test --shard 2/4 --reporter junit > hooks-tests-2.xml",
    'llama-agent hooks test --filter "rm -rf" --update   # then review: git diff',
    "llama-agent hooks test --watch",
  ],
};

export const hooksTestCommand: CliCommand = {
  spec,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const settings = await testSettings(args, io);
    if (typeof settings === "number") return settings;
    const discovered = await discoverScenarios(settings.cwd, settings.paths, io.cwd);
    if (discovered.files.length === 0 && discovered.problems.length === 0) {
      return fail(
        io,
        `No scenario files found under "${SCENARIO_DIR}": add *${SCENARIO_SUFFIX} files there, ` +
          "or name the files and directories to run",
      ).exitCode;
    }
    if (settings.watch) return await watch(settings, discovered, io);
    const interrupted = interruption(io);
    try {
      const done = await runTests(settings, discovered, io, interrupted.signal);
      return done.exitCode;
    } finally {
      interrupted.stopListening();
    }
  },
};

/** What the command line asks of a run, checked. */
export interface TestSettings {
  readonly cwd: string;
  readonly paths: readonly string[];
  readonly filter: string | undefined;
  readonly explain: boolean;
  readonly bail: boolean;
  readonly update: boolean;
  readonly watch: boolean;
  readonly reporterName: ReporterName;
  /** `--compat`, else its variable; `"auto"`: each case decides from its hooks. */
  readonly profile: ProfileSetting;
  readonly shard: Shard | undefined;
  readonly pluginDirs: readonly string[];
}

/** The flags, checked; a number is the exit code of a usage error (already reported). */
async function testSettings(args: readonly string[], io: CliIo): Promise<TestSettings | number> {
  const started = await start(args, io);
  if (!started.ok) return started.exitCode;
  const { cwd, paths, flags, lists } = started;
  const chosen = compatProfileFromFlags(flags, io);
  if (!chosen.ok) return fail(io, chosen.message).exitCode;
  const reporterName = REPORTER_NAMES.find((n) => n === flags["reporter"]) ?? "default";
  if (flags["watch"] === true && flags["update"] === true) {
    // Each update is a change the watch reruns: a hook whose output varies would never rest.
    return fail(io, "--update and --watch do not go together: run --update once, then --watch")
      .exitCode;
  }
  if (flags["watch"] === true && FOR_PROGRAMS[reporterName]) {
    // Each rerun would append another document to what a program reads as one.
    return fail(
      io,
      `--watch is for a terminal: use the default or github reporter, not ` +
        `"${reporterName}"`,
    ).exitCode;
  }
  const sharded = typeof flags["shard"] === "string" ? parseShard(flags["shard"]) : undefined;
  if (sharded !== undefined && !sharded.ok) return fail(io, sharded.message).exitCode;
  const pluginDirs = await resolvePluginDirs(lists["plugin-dir"] ?? [], io.cwd);
  if (!pluginDirs.ok) return fail(io, pluginDirs.message).exitCode;
  if (pluginDirs.dirs.length > 0 && chosen.setting !== "auto" && !chosen.setting.readsPlugins) {
    io.stderr(
      `--plugin-dir loads only in cases whose profile is "claude" ("compat": "claude" in the ` +
        `scenario or the case); the others run without it (or run with --compat claude)\n`,
    );
  }
  return {
    cwd,
    paths,
    filter: typeof flags["filter"] === "string" ? flags["filter"] : undefined,
    explain: flags["explain"] === true,
    bail: flags["bail"] === true,
    update: flags["update"] === true,
    watch: flags["watch"] === true,
    reporterName,
    profile: chosen.setting,
    shard: sharded?.shard,
    pluginDirs: pluginDirs.dirs,
  };
}

/** What one run did: its exit code, and the run as reported. */
export interface TestsDone {
  readonly exitCode: number;
  readonly run: RunResult;
}

/**
 * One run of the scenario files found: the cases, the report, the `--update` of failing cases,
 * and the exit code. It may be called again (a watch reruns it); `signal` interrupts it.
 */
export async function runTests(
  settings: TestSettings,
  discovered: { readonly files: readonly string[]; readonly problems: RunResult["problems"] },
  io: CliIo,
  signal: AbortSignal,
): Promise<TestsDone> {
  const { cwd, filter, explain, reporterName, shard } = settings;
  const reporter = REPORTERS[reporterName]({
    write: io.stdout,
    color: io.stdoutIsTty && !io.env("NO_COLOR"),
    explain,
    // GitHub resolves annotation paths from the repository root, whatever --cwd says.
    cwd: reporterName === "github" ? io.env("GITHUB_WORKSPACE") || io.cwd : cwd,
    ...(shard === undefined ? {} : { shard }),
  });
  const run = await runScenarios({
    projectDir: cwd,
    files: discovered.files,
    filter,
    bail: settings.bail,
    ...(shard === undefined ? {} : { shard }),
    explain,
    profile: settings.profile,
    pluginDirs: settings.pluginDirs,
    env: io.env,
    onCaseEnd: (result) => reporter.onCaseEnd?.(result),
    signal,
  });
  const discoveryProblems = reportsProblems(shard) ? discovered.problems : [];
  const result: RunResult = { ...run, problems: [...discoveryProblems, ...run.problems] };
  const done = (exitCode: number): TestsDone => ({ exitCode, run: result });
  reporter.onRunEnd(result);
  // What a person reads goes where they look: stderr when stdout is a report for a program.
  const tell = FOR_PROGRAMS[reporterName] ? io.stderr : io.stdout;
  if (FOR_PROGRAMS[reporterName] && result.problems.length > 0) {
    io.stderr(result.problems.map((p) => problemLine(p, cwd) + "\n").join(""));
  }
  if (signal.aborted) {
    io.stderr(
      "Interrupted: the cases still running were stopped and their temporary places removed" +
        (settings.update ? "; no scenario file was updated\n" : "\n"),
    );
    return done(EXIT_INTERRUPTED);
  }
  if (filter !== undefined && result.selected === 0 && result.problems.length === 0) {
    return done(fail(io, `No case matches --filter "${filter}"`).exitCode);
  }
  if (shard !== undefined && result.results.length === 0 && (result.selected ?? 0) > 0) {
    io.stderr(
      `Shard ${shard.index}/${shard.count} has no case: the run has ${result.selected}, ` +
        "fewer than its shards\n",
    );
  }
  if (!settings.update) return done(exitCode(result));
  const files = scenarioFiles(await writePlace(io, cwd), io);
  const update = await updateSnapshots(result.results, files);
  tell(describeSnapshotUpdate(update, cwd));
  // A case whose every failure was rewritten passes now: the run counts it so.
  const counted = result.results.map((r) =>
    update.updated.has(caseKey(r)) ? { ...r, status: "passed" as const } : r
  );
  return done(exitCode({ ...result, results: counted }));
}

/**
 * `--watch`: the first run reports what discovery found wrong; later runs rerun only the files a
 * change affects (and new ones), until Ctrl-C.
 */
function watch(
  settings: TestSettings,
  discovered: { readonly files: readonly string[]; readonly problems: RunResult["problems"] },
  io: CliIo,
): Promise<number> {
  let problems = discovered.problems;
  return watchLoop({
    projectDir: settings.cwd,
    discover: async () => (await discoverScenarios(settings.cwd, settings.paths, io.cwd)).files,
    scenarioDirs: settings.paths.length === 0
      ? [resolve(settings.cwd, SCENARIO_DIR)]
      : settings.paths.map((path) => resolve(io.cwd, path)),
    runOnce: async (files, signal) => {
      const { exitCode, run } = await runTests(settings, { files, problems }, io, signal);
      problems = [];
      return {
        exitCode,
        ...run.summary,
        invalidFiles: new Set(run.problems.map((problem) => problem.file)).size,
      };
    },
    io,
    profile: settings.profile,
    pluginDirs: settings.pluginDirs,
  });
}

/** As a shell reports a program that SIGINT ended. */
const EXIT_INTERRUPTED = 130;

/**
 * Aborts on the first SIGINT, SIGTERM or SIGHUP: the running cases end at once, their places
 * removed, and the report is written. It stops listening then, so a second Ctrl-C ends the
 * program without waiting (leaving what the first was cleaning up).
 */
function interruption(io: CliIo): { readonly signal: AbortSignal; stopListening(): void } {
  const controller = new AbortController();
  let listening = true;
  const stopListening = () => {
    if (listening) unlisten();
    listening = false;
  };
  const unlisten = io.onTermination(() => {
    controller.abort();
    stopListening();
  });
  return { signal: controller.signal, stopListening };
}

/**
 * Reporters whose output a program reads, often from a file: invalid scenario files are also
 * listed on stderr, so the person watching the run sees why it exits 2.
 */
const FOR_PROGRAMS: Readonly<Record<ReporterName, boolean>> = {
  default: false,
  github: false,
  tap: true,
  junit: true,
  json: true,
};

/**
 * 2 when the input is invalid (a scenario file, or a case that could not run), else 1 when a
 * case failed, else 0.
 */
export function exitCode(run: RunResult): number {
  const has = (status: CaseResult["status"]) => run.results.some((r) => r.status === status);
  if (run.problems.length > 0 || has("error")) return EXIT.usage;
  return has("failed") ? EXIT.failure : EXIT.ok;
}

type Started =
  | {
    readonly ok: true;
    readonly cwd: string;
    readonly paths: readonly string[];
    readonly flags: Readonly<Record<string, string | boolean | undefined>>;
    readonly lists: Readonly<Record<string, readonly string[]>>;
  }
  | { readonly ok: false; readonly exitCode: number };

/**
 * `startCommand`, for a command that takes any number of paths: the flag table is parsed with a
 * slot for every argument, the help shows the one `[PATHS...]`.
 */
async function start(args: readonly string[], io: CliIo): Promise<Started> {
  const slots = args.map(() => spec.positionals[0]!);
  const parsed = parseCommandLine({ ...spec, positionals: slots }, args);
  if (!parsed.ok) return fail(io, parsed.error);
  if (parsed.value.help) {
    io.stdout(renderHelp(spec));
    return { ok: false, exitCode: EXIT.ok };
  }
  const flag = parsed.value.flags["cwd"];
  const cwd = await resolveCwd(typeof flag === "string" ? flag : undefined, io.cwd, io.env);
  if (!cwd.ok) return fail(io, cwd.error);
  const { positionals: paths, flags, lists } = parsed.value;
  return { ok: true, cwd: cwd.path, paths, flags, lists };
}
