/**
 * Finds processes from outside through `/proc` (Linux): those whose environment carries a mark,
 * whatever their command line, so that a test sees every process a command started, however
 * deep, and an agent's direct children. Zombies count as gone.
 */

/** The variable a test sets in the agent's environment; every process it starts inherits it. */
export const MARK_VARIABLE = "LLAMA_AGENT_TEST_MARK";

export interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  /** The command line, arguments joined by spaces. */
  readonly args: string;
}

/** Living processes whose environment holds `LLAMA_AGENT_TEST_MARK=<mark>`. */
export async function processesMarked(mark: string): Promise<ProcessInfo[]> {
  const entry = new TextEncoder().encode(`${MARK_VARIABLE}=${mark}`);
  const found: ProcessInfo[] = [];
  for (const pid of await allPids()) {
    const environ = await readOrUndefined(`/proc/${pid}/environ`);
    if (environ === undefined || !holdsEntry(environ, entry)) continue;
    const info = await processInfo(pid);
    if (info !== undefined) found.push(info);
  }
  return found;
}

/** Living direct children of `parent`. */
export async function childrenOf(parent: number): Promise<ProcessInfo[]> {
  const found: ProcessInfo[] = [];
  for (const pid of await allPids()) {
    const info = await processInfo(pid);
    if (info?.ppid === parent) found.push(info);
  }
  return found;
}

/** Those of `processes` that still run the same command line (not a pid reused since). */
export async function stillRunning(processes: readonly ProcessInfo[]): Promise<ProcessInfo[]> {
  const running: ProcessInfo[] = [];
  for (const process of processes) {
    if ((await processInfo(process.pid))?.args === process.args) running.push(process);
  }
  return running;
}

/**
 * SIGKILLs each process, and its group unless that is the caller's own (errors ignored): a
 * test's teardown.
 */
export async function killAll(processes: readonly ProcessInfo[]): Promise<void> {
  const ownGroup = (await processInfo(Deno.pid))?.pgid;
  for (const { pid, pgid } of processes) {
    const targets = pgid > 1 && pgid !== ownGroup ? [-pgid, pid] : [pid];
    for (const target of targets) {
      try {
        Deno.kill(target, "SIGKILL");
      } catch {
        // Gone already.
      }
    }
  }
}

async function allPids(): Promise<number[]> {
  const pids: number[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (/^[0-9]+$/.test(entry.name)) pids.push(Number(entry.name));
  }
  return pids;
}

async function processInfo(pid: number): Promise<ProcessInfo | undefined> {
  const stat = await readOrUndefined(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so split after the last ")".
  const text = new TextDecoder().decode(stat);
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const [state, ppid, pgid] = fields;
  if (state === undefined || state === "Z" || state === "X") return undefined;
  const cmdline = await readOrUndefined(`/proc/${pid}/cmdline`) ?? new Uint8Array();
  const args = new TextDecoder().decode(cmdline).replace(/\0$/, "").replaceAll("\0", " ");
  return { pid, ppid: Number(ppid), pgid: Number(pgid), args };
}

function holdsEntry(environ: Uint8Array, entry: Uint8Array): boolean {
  let start = 0;
  while (start < environ.length) {
    let end = environ.indexOf(0, start);
    if (end === -1) end = environ.length;
    if (end - start === entry.length && entry.every((byte, i) => environ[start + i] === byte)) {
      return true;
    }
    start = end + 1;
  }
  return false;
}

/** A process may end, or belong to another user, while we read it. */
async function readOrUndefined(path: string): Promise<Uint8Array | undefined> {
  try {
    return await Deno.readFile(path);
  } catch {
    return undefined;
  }
}
