/**
 * This process's minor page faults so far (`minflt` in /proc/self/stat), read synchronously so
 * that reading it adds no turn of the event loop to a timed stretch. A fork (every hook: see
 * bench/seams.ts) write-protects the agent's pages, and each first write after it is such a fault.
 */
export function minorFaults(): number {
  const stat = Deno.readTextFileSync("/proc/self/stat");
  // "pid (comm) state ppid pgrp session tty tpgid flags minflt ...": comm may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[7]);
}
