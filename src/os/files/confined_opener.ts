/**
 * How confined files are opened: with descriptors through libc where it can be used (Linux,
 * glibc, FFI granted: exact), else with Deno's file API and a check of what was opened (it
 * narrows the race between check and open, it does not close it: see path_opener.ts).
 */
import type { ConfinedOpener } from "./confined_file.ts";
import { DescriptorOpener } from "./descriptor_opener.ts";
import { loadLibc } from "./libc.ts";
import { PathOpener } from "./path_opener.ts";

let chosen: ConfinedOpener | undefined;

/** The opener for this process, chosen on first use (loading libc costs start-up time). */
export function confinedOpener(): ConfinedOpener {
  if (chosen === undefined) {
    const libc = loadLibc();
    chosen = libc === undefined ? new PathOpener() : new DescriptorOpener(libc);
  }
  return chosen;
}
