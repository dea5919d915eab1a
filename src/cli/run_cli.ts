/**
 * Walks the command tree: `--help` and `--version` work at every level, `help <command>` is
 * `<command> --help`, unknown commands and flags are usage errors (exit 2) that say what to run
 * instead (and what was meant, when a word is a typo away from one). Only the tree is loaded
 * before `--help` or `--version` prints: each command's module, and the process-wide set-up the
 * caller passes as `beforeCommand`, load once a command is chosen.
 */
import { VERSION } from "../version.ts";
import { COMMAND_TREE, type GroupNode } from "./command_tree.ts";
import { type CliIo, EXIT } from "./command_spec.ts";
import { parseCommandLine, renderHelp } from "./parse_command_line.ts";
import { nearestName } from "../nearest_name.ts";

export interface RunCliOptions {
  /**
   * Runs once a command is chosen, before its module loads: set-up that only commands need (the
   * orphan guard), which `--version` and a group's help never wait for.
   */
  readonly beforeCommand?: () => Promise<void>;
}

export async function runCli(
  args: readonly string[],
  io: CliIo,
  options: RunCliOptions = {},
): Promise<number> {
  const version = wantsVersion(args);
  if (version !== undefined) {
    io.stdout(await renderVersion(version));
    return EXIT.ok;
  }
  let group: GroupNode = COMMAND_TREE;
  const path: string[] = [];
  for (let i = 0; i <= args.length; i++) {
    const word = args[i];
    if (word === "help" && i + 1 < args.length) {
      return await runCli([...path, ...args.slice(i + 1), "--help"], io, options);
    }
    if (word === undefined || word === "--help" || word === "-h" || word === "help") {
      io.stdout(renderGroupHelp(path, group));
      return EXIT.ok;
    }
    const node = Object.hasOwn(group.children, word) ? group.children[word] : undefined;
    if (node === undefined) {
      io.stderr(unknownWordError(path, group, word) + "\n");
      return EXIT.usage;
    }
    path.push(word);
    if (node.kind === "group") {
      group = node;
      continue;
    }
    await options.beforeCommand?.();
    const command = await node.load();
    const rest = args.slice(i + 1);
    return await command.run(rest, io);
  }
  return EXIT.usage;
}

/** What a run printed, and its exit code. */
export interface CapturedRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `runCli` in-process with its output kept, no terminal, no environment and empty input: for the
 * tools and tests that read what a command prints (its help, its usage errors).
 */
export async function runCliCapturingOutput(args: readonly string[]): Promise<CapturedRun> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    stdoutIsTty: false,
    stderrIsTty: false,
    env: () => undefined,
    cwd: "/",
    stdinStream: () => new ReadableStream(),
    stdoutStream: () => new WritableStream(),
    routeConsoleToStderr: () => Promise.resolve(),
    onTermination: () => () => {},
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

function unknownWordError(path: readonly string[], group: GroupNode, word: string): string {
  const where = ["llama-agent", ...path].join(" ");
  const hint = `run "${where} --help" for the commands`;
  if (word.startsWith("-")) {
    const meant = word.startsWith("--")
      ? nearestName(word.slice(2), ["help", "version"])
      : undefined;
    const detail = meant === undefined ? hint : `did you mean "--${meant}"? (${hint})`;
    return `Unknown flag "${word}" for "${where}": ${detail}`;
  }
  const meant = nearestName(word, Object.keys(group.children));
  const detail = meant === undefined ? hint : `did you mean "${where} ${meant}"? (${hint})`;
  return `Unknown command "${word}" for "${where}": ${detail}`;
}

/**
 * `--version` anywhere before `--`, as long as it is not the value of a flag: "verbose" with
 * `--verbose` beside it, which is accepted nowhere else.
 */
function wantsVersion(args: readonly string[]): "plain" | "verbose" | undefined {
  const end = args.indexOf("--");
  const words = end === -1 ? args : args.slice(0, end);
  if (!words.includes("--version") && !words.includes("-V")) return undefined;
  return words.includes("--verbose") ? "verbose" : "plain";
}

/**
 * The version line; verbose adds what a bug report needs: the Deno running it, the platform and
 * how hooks are spawned (whose module loads only here, so that plain `--version` stays cheap).
 */
async function renderVersion(kind: "plain" | "verbose"): Promise<string> {
  const lines = [`llama-agent ${VERSION}`];
  if (kind === "verbose") {
    const { describeSpawnPath } = await import("../os/process/spawn_path.ts");
    lines.push(
      `deno: ${Deno.version.deno} (v8 ${Deno.version.v8}, typescript ${Deno.version.typescript})`,
      `os: ${Deno.build.os} ${Deno.build.arch}`,
      `spawn: ${describeSpawnPath()}`,
    );
  }
  return lines.join("\n") + "\n";
}

function renderGroupHelp(path: readonly string[], group: GroupNode): string {
  const name = ["llama-agent", ...path].join(" ");
  const entries = Object.entries(group.children);
  const width = Math.max(...entries.map(([word]) => word.length));
  const lines = [
    `${name}: ${group.summary}`,
    "",
    `Usage: ${name} <command> [flags]`,
  ];
  if (group.description) lines.push("", group.description);
  lines.push("", "Commands:");
  for (const [word, node] of entries) lines.push(`  ${word.padEnd(width)}  ${node.summary}`);
  lines.push(
    "",
    "Flags:",
    "  -h, --help     Show this help",
    "  -V, --version  Show the version",
    "      --verbose  With --version: also Deno, the OS and how hooks are spawned",
    "",
    `Run "${name} <command> --help" for a command's flags.`,
  );
  return lines.join("\n") + "\n";
}

export { parseCommandLine, renderHelp };
