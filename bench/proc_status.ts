/**
 * What Linux's /proc says about a process: its children, its command line, its resident memory.
 */

/** The ids of the processes whose parent is `parent`. */
export async function childPids(parent: number): Promise<number[]> {
  const children: number[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^[0-9]+$/.test(entry.name)) continue;
    let stat: string;
    try {
      stat = await Deno.readTextFile(`/proc/${entry.name}/stat`);
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after its end.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (ppid === parent) children.push(Number(entry.name));
  }
  return children;
}

/** The process's executable name and arguments. */
export async function commandLine(pid: number): Promise<string[]> {
  const raw = await Deno.readTextFile(`/proc/${pid}/cmdline`);
  return raw.split("\0").filter((arg) => arg !== "");
}

/** `VmRSS` from /proc/PID/status, in bytes. */
export async function residentBytes(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const match = /^VmRSS:\s+([0-9]+) kB$/m.exec(status);
  if (!match) throw new Error(`Cannot read the resident memory of process ${pid}: no "VmRSS"`);
  return Number(match[1]) * 1024;
}
