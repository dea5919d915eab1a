/**
 * acpx with persistent sessions: several commands (`sessions new`, `set-mode`, `prompt`) against
 * one acpx HOME, each starting the agent anew and bringing the session back with `session/resume`
 * or `session/load`. `runAcpx` (tests/helpers/acpx.ts) runs one `exec` with a fresh HOME; this
 * keeps the HOME for the whole test.
 *
 * A `prompt` leaves acpx's queue owner (a detached `node ... __queue-owner`, the agent its child)
 * running for `--ttl` seconds: every command passes `--ttl 1`, and the end waits for that process
 * group to exit, SIGKILLing it if it does not within 20 s, so no test leaves it behind.
 */
import { acpxAgentArgs, acpxCommand, type AcpxRun, acpxRunOf, findNode } from "../helpers/acpx.ts";
import { livingGroupMembers, livingPidsMatching } from "../hooks/process_probe.ts";

export interface AcpxSessionsOptions {
  /**
   * The agent's command line. Its arguments (after the program) must be unique to the test (a
   * model path in a temporary directory) and end the running agent's command line, as the
   * launcher's do: they are how the agent's process is found.
   */
  readonly agentCommand: readonly string[];
  /** The working directory of acpx and of the session (`--cwd`). */
  readonly cwd: string;
  /** HOME for the agent (acpx gets one of its own for the whole test). */
  readonly home: string;
}

export interface AcpxSessions {
  /** Runs `acpx --agent ... --cwd ... --format json --ttl 1 ...args`. */
  run(args: readonly string[]): Promise<AcpxRun>;
}

const LEAVE_TIMEOUT_MS = 20_000;

export async function withAcpxSessions(
  options: AcpxSessionsOptions,
  fn: (acpx: AcpxSessions) => Promise<void>,
): Promise<void> {
  const node = findNode();
  if (node === undefined) throw new Error('withAcpxSessions: no "node" on PATH');
  const acpxHome = await Deno.makeTempDir({ prefix: "llama-agent-acpx-home-" });
  const agentStderrFile = `${acpxHome}/agent-stderr.log`;
  // The launcher execs the runtime with these arguments last: they name the agent's process.
  const agentMarker = options.agentCommand.slice(1).join(" ");
  const groups = new Set<number>();
  const ownGroup = await groupOf(Deno.pid);
  const run = async (args: readonly string[]): Promise<AcpxRun> => {
    const output = await acpxCommand(node, [
      ...acpxAgentArgs(options, agentStderrFile),
      "--ttl",
      "1",
      ...args,
    ], { cwd: options.cwd, acpxHome }).output();
    // The queue owner's group: found through the agent it runs, while it still runs it.
    for (const pid of await livingPidsMatching(agentMarker)) {
      const group = await groupOf(pid);
      // Never our own group (acpx not detaching its owner): that would take the test runner too.
      if (group > 0 && group !== ownGroup) groups.add(group);
    }
    const agentStderr = await Deno.readTextFile(agentStderrFile).catch(() => "");
    return acpxRunOf(output, agentStderr, false);
  };
  try {
    await fn({ run });
  } finally {
    try {
      await waitForGroups(groups, agentMarker);
    } finally {
      await Deno.remove(acpxHome, { recursive: true });
    }
  }
}

async function groupOf(pid: number): Promise<number> {
  const { stdout } = await new Deno.Command("ps", {
    args: ["-o", "pgid=", "-p", String(pid)],
    stdout: "piped",
    stderr: "null",
  }).output();
  // Nothing (0) when it exited meanwhile.
  return Number(new TextDecoder().decode(stdout).trim());
}

async function waitForGroups(groups: ReadonlySet<number>, agentMarker: string): Promise<void> {
  const deadline = performance.now() + LEAVE_TIMEOUT_MS;
  while (true) {
    const members = (await Promise.all([...groups].map(livingGroupMembers))).flat();
    const agents = await livingPidsMatching(agentMarker);
    if (members.length === 0 && agents.length === 0) return;
    if (performance.now() > deadline) {
      for (const group of groups) killQuietly(-group);
      for (const pid of agents) killQuietly(pid);
      throw new Error(
        `acpx's queue owner or the agent still ran ${LEAVE_TIMEOUT_MS} ms after the last command`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function killQuietly(pid: number): void {
  try {
    Deno.kill(pid, "SIGKILL");
  } catch {
    // It exited meanwhile.
  }
}
