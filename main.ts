/**
 * The only module that touches the process: arguments, exit codes and the streams. Everything
 * else is `run(args, io) → exit code`.
 */
import { runCli } from "./src/cli/run_cli.ts";
import { describePermissionError } from "./src/cli/permission_error.ts";
import { homeAccessProblem, launcherDir } from "./src/cli/home_access.ts";
import type { CliIo } from "./src/cli/command_spec.ts";

const encoder = new TextEncoder();

/**
 * A path Deno cannot hold as text (not UTF-8) cannot be granted exactly either: Deno grants it with
 * U+FFFD in place of the bad bytes, which names another directory. Such a launch directory or
 * $HOME is refused before any command runs.
 */
const NOT_UTF8 = Symbol("not UTF-8");

function readText(read: () => string | undefined): string | undefined | typeof NOT_UTF8 {
  try {
    return read();
  } catch (error) {
    if (error instanceof Deno.errors.InvalidData) return NOT_UTF8;
    throw error;
  }
}

const launchDir = readText(() => Deno.cwd());

const io: CliIo = {
  stdout: (text) => writeAll(Deno.stdout, text),
  stderr: (text) => writeAll(Deno.stderr, text),
  stdoutIsTty: Deno.stdout.isTerminal(),
  stderrIsTty: Deno.stderr.isTerminal(),
  env: (name) => Deno.env.get(name),
  // Only read once startupProblem() found the launch directory readable.
  cwd: typeof launchDir === "string" ? launchDir : "",
  stdinStream: () => Deno.stdin.readable,
  stdoutStream: () => Deno.stdout.writable,
  async routeConsoleToStderr() {
    // A whole console on stderr, not a few methods swapped: console.table, dir, count and the
    // rest print through their own path. node:console costs ~50 ms to load, so only the
    // protocol server asks for it.
    const [{ Console }, { default: process }] = await Promise.all([
      import("node:console"),
      import("node:process"),
    ]);
    const stderrConsole: Console = new Console({ stdout: process.stderr, stderr: process.stderr });
    globalThis.console = stderrConsole;
  },
  onTermination(handler) {
    // SIGHUP too: an editor that goes away takes the agent's terminal with it.
    const signals: Deno.Signal[] = Deno.build.os === "windows"
      ? ["SIGINT"]
      : ["SIGINT", "SIGTERM", "SIGHUP"];
    for (const signal of signals) Deno.addSignalListener(signal, handler);
    return () => {
      for (const signal of signals) Deno.removeSignalListener(signal, handler);
    };
  },
};

/** `--help` and `--version` need no files. */
function wantsInfoOnly(args: readonly string[]): boolean {
  return args.some((arg) => arg === "--help" || arg === "-h" || arg === "--version");
}

function writeAll(stream: typeof Deno.stdout, text: string): void {
  const bytes = encoder.encode(text);
  let written = 0;
  while (written < bytes.length) written += stream.writeSync(bytes.subarray(written));
}

// Windows has no HOME; llama-agent's files (settings, transcripts, caches) go under the profile.
if (Deno.build.os === "windows" && !Deno.env.get("HOME") && Deno.env.get("USERPROFILE")) {
  Deno.env.set("HOME", Deno.env.get("USERPROFILE")!);
}

/**
 * Whatever kills the agent, even SIGKILL, ends the process groups it started. Installed once a
 * command is chosen, so that `--version` and `--help` do not load the guard's modules; the
 * supervisor itself starts with the first group, so commands that start none (lint) pay nothing.
 */
async function installGuard(): Promise<void> {
  if (Deno.build.os === "windows") return;
  const [{ installOrphanGuard }, { createOrphanGuard, orphanGuardDirs }] = await Promise.all([
    import("./src/os/process/guard_group.ts"),
    import("./src/os/process/orphan_guard.ts"),
  ]);
  const guardDirs = orphanGuardDirs((name) => Deno.env.get(name));
  if (guardDirs === undefined) return;
  installOrphanGuard(createOrphanGuard({
    ...guardDirs,
    onFailure: (message) => io.stderr(`llama-agent: ${message}\n`),
  }));
}

/** What stops llama-agent before any command: a launch directory or $HOME it may not use. */
function startupProblem(): string | undefined {
  if (launchDir === NOT_UTF8) {
    return "the path of the directory llama-agent is started in is not valid UTF-8, so Deno " +
      "cannot grant it exactly: start llama-agent from a directory whose path is";
  }
  if (wantsInfoOnly(Deno.args)) return undefined;
  const home = readText(() => Deno.env.get("HOME"));
  if (home === NOT_UTF8) {
    return "HOME is not valid UTF-8, so Deno cannot grant your home directory exactly: set " +
      "HOME to a path that is";
  }
  return homeAccessProblem(home, { launcherDir: launcher });
}

/**
 * Whether bin/llama-agent started this process. Its variables, inherited by a compiled
 * llama-agent that a hook or a command starts, would name another launch directory: they are
 * removed when they are not this process's own.
 */
function ownLauncherDir(): string | undefined {
  const installDir = readText(() => Deno.env.get("LLAMA_AGENT_INSTALL_DIR"));
  const launchVariable = readText(() => Deno.env.get("LLAMA_AGENT_LAUNCH_DIR"));
  const launcher = typeof launchDir !== "string" || installDir === NOT_UTF8 ||
      launchVariable === NOT_UTF8
    ? undefined
    : launcherDir({
      installDir,
      launchDir: launchVariable,
      cwd: launchDir,
      mainDir: new URL(".", import.meta.url).href,
    });
  if (launcher === undefined) {
    Deno.env.delete("LLAMA_AGENT_INSTALL_DIR");
    Deno.env.delete("LLAMA_AGENT_LAUNCH_DIR");
  }
  return launcher;
}

// A grep's matcher process (GREP_MATCHER_ARGUMENT, src/agent/search/grep_matcher_process.ts): the
// compiled binary cannot `deno run` it, so it runs itself with this argument.
if (Deno.args[0] === "--grep-matcher-process") {
  const { runGrepMatcherProcess } = await import("./src/agent/search/grep_matcher_process.ts");
  Deno.exit(await runGrepMatcherProcess());
}

const launcher = ownLauncherDir();

let code: number;
const problem = startupProblem();
try {
  if (problem !== undefined) {
    io.stderr(`llama-agent: ${problem}\n`);
    code = 1;
  } else code = await runCli(Deno.args, io, { beforeCommand: installGuard });
} catch (error) {
  const permission = describePermissionError(error, Deno.env.get("LLAMA_AGENT_LAUNCH_DIR"));
  if (permission !== undefined) {
    io.stderr(`llama-agent: ${permission}\n`);
    code = 1;
  } else {
    io.stderr(`llama-agent: internal error: ${error instanceof Error ? error.stack : error}\n`);
    code = 70;
  }
}
Deno.exit(code);
