/**
 * Test helpers that look at processes from outside: which of some pids (or of a process group)
 * are still alive. Zombies count as gone: they no longer run and only wait to be reaped by
 * whoever inherited them.
 */

const FIXTURES = new URL("../../fixtures/hooks/", import.meta.url);

/** Absolute path of a script under `fixtures/hooks/`. */
export function fixture(name: string): string {
  return new URL(name, FIXTURES).pathname;
}

interface ProcessRow {
  readonly pid: number;
  readonly pgid: number;
  readonly stat: string;
}

async function processTable(): Promise<ProcessRow[]> {
  const { stdout } = await new Deno.Command("ps", {
    args: ["-e", "-o", "pid=,pgid=,stat="],
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(stdout).split("\n").flatMap((line) => {
    const [pid, pgid, stat] = line.trim().split(/\s+/);
    if (pid === undefined || pgid === undefined || stat === undefined) return [];
    return [{ pid: Number(pid), pgid: Number(pgid), stat }];
  });
}

/** Pids among `pids` that are alive and not zombies. */
export async function livingPids(pids: readonly number[]): Promise<number[]> {
  const table = await processTable();
  return table.filter((row) => pids.includes(row.pid) && !row.stat.startsWith("Z"))
    .map((row) => row.pid);
}

/** Pids of the group that are alive and not zombies. */
export async function livingGroupMembers(pgid: number): Promise<number[]> {
  const table = await processTable();
  return table.filter((row) => row.pgid === pgid && !row.stat.startsWith("Z")).map((row) =>
    row.pid
  );
}

/** Waits until a fixture has written its pid file, and returns the pids in it. */
export async function readPidFile(path: string, timeoutMs = 5000): Promise<number[]> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    try {
      const text = await Deno.readTextFile(path);
      if (text.endsWith("\n")) return text.trim().split(/\s+/).map(Number);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`No pid file at "${path}" after ${timeoutMs} ms`);
}

/** Pids of living (non-zombie) processes whose command line contains `marker`. */
export async function livingPidsMatching(marker: string): Promise<number[]> {
  const { stdout } = await new Deno.Command("ps", {
    args: ["-e", "-o", "pid=,stat=,args="],
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(stdout).split("\n").flatMap((line) => {
    const match = line.trim().match(/^(\d+)\s+(\S+)\s+(.*)$/);
    if (!match || match[2]!.startsWith("Z") || !match[3]!.includes(marker)) return [];
    if (match[3]!.startsWith("ps ")) return [];
    return [Number(match[1])];
  });
}
