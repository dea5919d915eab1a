/**
 * `llama-agent hooks test [PATHS...]`: runs a repository's scenario files against its real hooks,
 * hermetically, and reports each case. Invalid scenario files are reported first and the valid
 * ones still run; the exit code says which of the three things happened.
 */
import { COMPAT_FLAG, compatProfileFromFlags } from "./compat_flag.ts";
import { type CliCommand, type CliIo, type CommandSpec, EXIT } from "./command_spec.ts";
import { parseCommandLine, renderHelp } from "./parse_command_line.ts";
import { PLUGIN_DIR_FLAG, resolvePluginDirs } from "./plugin_dir_flag.ts";
import { resolveCwd } from "./resolve_cwd.ts";
import { CWD_FLAG, fail } from "./start_command.ts";
import type { CaseResult } from "../testing/case_result.ts";
import { discoverScenarios, SCENARIO_DIR, SCENARIO_SUFFIX } from "../testing/discover_scenarios.ts";
import { problemLine } from "../testing/reporters/problem_line.ts";
import { REPORTER_NAMES, type ReporterName, REPORTERS } from "../testing/reporters/reporters.ts";
import { runScenarios } from "../testing/run_scenarios.ts";
import type { RunResult } from "../testing/scenario_run.ts";
import { parseShard, reportsProblems } from "../testing/case_shard.ts";

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
    "claude, after its scenario's own.\n" +
    "\n" +
    "Invalid scenario files are reported first (file:line:column) and the valid files still\n" +
    "run. Exit codes: 0 every case passed; 1 a case failed; 2 invalid input (an invalid\n" +
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
    "llama-agent hooks test --compat claude --plugin-dir ../my-plugin",
    "llama-agent hooks test --shard 2/4 --reporter junit > hooks-tests-2.xml",
  ],
};

export const hooksTestCommand: CliCommand = {
  spec,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const started = await start(args, io);
    if (!started.ok) return started.exitCode;
    const { cwd, paths, flags, lists } = started;
    const filter = typeof flags["filter"] === "string" ? flags["filter"] : undefined;
    const explain = flags["explain"] === true;
    const reporterName = REPORTER_NAMES.find((n) => n === flags["reporter"]) ?? "default";
    const chosen = compatProfileFromFlags(flags, io);
    if (!chosen.ok) return fail(io, chosen.message).exitCode;
    const sharded = typeof flags["shard"] === "string" ? parseShard(flags["shard"]) : undefined;
    if (sharded !== undefined && !sharded.ok) return fail(io, sharded.message).exitCode;
    const shard = sharded?.shard;
    const pluginDirs = await resolvePluginDirs(lists["plugin-dir"] ?? [], io.cwd);
    if (!pluginDirs.ok) return fail(io, pluginDirs.message).exitCode;
    if (pluginDirs.dirs.length > 0 && !chosen.profile.readsPlugins) {
      io.stderr(
        `--plugin-dir loads only in cases whose profile is "claude" ("compat": "claude" in the ` +
          `scenario or the case); the others run without it (or run with --compat claude)\n`,
      );
    }

    const discovered = await discoverScenarios(cwd, paths, io.cwd);
    if (discovered.files.length === 0 && discovered.problems.length === 0) {
      return fail(
        io,
        `No scenario files found under "${SCENARIO_DIR}": add *${SCENARIO_SUFFIX} files there, ` +
          "or name the files and directories to run",
      ).exitCode;
    }
    const reporter = REPORTERS[reporterName]({
      write: io.stdout,
      color: io.stdoutIsTty && !io.env("NO_COLOR"),
      explain,
      // GitHub resolves annotation paths from the repository root, whatever --cwd says.
      cwd: reporterName === "github" ? io.env("GITHUB_WORKSPACE") || io.cwd : cwd,
    });
    const interrupted = interruption(io);
    let run: RunResult;
    try {
      run = await runScenarios({
        projectDir: cwd,
        files: discovered.files,
        filter,
        bail: flags["bail"] === true,
        ...(shard === undefined ? {} : { shard }),
        explain,
        profile: chosen.profile,
        pluginDirs: pluginDirs.dirs,
        env: io.env,
        onCaseEnd: (result) => reporter.onCaseEnd?.(result),
        signal: interrupted.signal,
      });
    } finally {
      interrupted.stopListening();
    }
    const discoveryProblems = reportsProblems(shard) ? discovered.problems : [];
    const result: RunResult = { ...run, problems: [...discoveryProblems, ...run.problems] };
    reporter.onRunEnd(result);
    if (FOR_PROGRAMS[reporterName] && result.problems.length > 0) {
      io.stderr(result.problems.map((p) => problemLine(p, cwd) + "\n").join(""));
    }
    if (interrupted.signal.aborted) {
      io.stderr(
        "Interrupted: the cases still running were stopped and their temporary places removed\n",
      );
      return EXIT_INTERRUPTED;
    }
    if (filter !== undefined && result.selected === 0 && result.problems.length === 0) {
      return fail(io, `No case matches --filter "${filter}"`).exitCode;
    }
    if (shard !== undefined && result.results.length === 0 && (result.selected ?? 0) > 0) {
      io.stderr(
        `Shard ${shard.index}/${shard.count} has no case: the run has ${result.selected}, ` +
          "fewer than its shards\n",
      );
    }
    return exitCode(result);
  },
};

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
