/**
 * The only module that touches the process: arguments, exit codes and the streams. Everything
 * else is `run(args, io) → exit code`.
 */
import { runCli } from "./src/cli/run_cli.ts";
import { describePermissionError } from "./src/cli/permission_error.ts";
import { homeAccessProblem } from "./src/cli/home_access.ts";
import type { CliIo } from "./src/cli/command_spec.ts";

const encoder = new TextEncoder();

const io: CliIo = {
  stdout: (text) => writeAll(Deno.stdout, text),
  stderr: (text) => writeAll(Deno.stderr, text),
  stdoutIsTty: Deno.stdout.isTerminal(),
  stderrIsTty: Deno.stderr.isTerminal(),
  env: (name) => Deno.env.get(name),
  cwd: Deno.cwd(),
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
    import("./src/hooks/guard_group.ts"),
    import("./src/hooks/orphan_guard.ts"),
  ]);
  const guardDirs = orphanGuardDirs((name) => Deno.env.get(name));
  if (guardDirs === undefined) return;
  installOrphanGuard(createOrphanGuard({
    ...guardDirs,
    onFailure: (message) => io.stderr(`llama-agent: ${message}\n`),
  }));
}

let code: number;
const homeProblem = wantsInfoOnly(Deno.args) ? undefined : homeAccessProblem(Deno.env.get("HOME"));
try {
  if (homeProblem !== undefined) {
    io.stderr(`llama-agent: ${homeProblem}\n`);
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
