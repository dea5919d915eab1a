/**
 * What the orphan guard's tests share: a guard writing its log in a temporary directory, process
 * groups to register with it, and their clean-up.
 */
import type { GroupChild } from "../../src/os/process/group_child.ts";
import {
  createOrphanGuard,
  type OrphanGuard,
  type OrphanGuardOptions,
} from "../../src/os/process/orphan_guard.ts";
import { spawnInOwnGroup } from "../../src/os/process/process_group.ts";
import { assertEquals } from "../helpers/assert.ts";
import { livingGroupMembers } from "./process_probe.ts";
import { waitUntil } from "../helpers/wait_until.ts";

export const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";
/** A leader with two members it started: what "the whole group" means. */
export const TREE = "sleep 600 & sleep 600 & wait";

/**
 * A guard writing its log in a temporary directory, for the length of `fn`; the directory must
 * be empty at the end (the supervisor removes the log once it has opened it).
 */
export async function withGuard(
  options: Omit<OrphanGuardOptions, "dir">,
  fn: (guard: OrphanGuard, dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "orphan_guard_test_" });
  const guard = createOrphanGuard({ dir, ...options });
  try {
    await fn(guard, dir);
  } finally {
    await guard.close();
    const left: string[] = [];
    for await (const entry of Deno.readDir(dir)) left.push(entry.name);
    await Deno.remove(dir, { recursive: true });
    assertEquals(left, [], "the log is gone");
  }
}

/** A group of three (a shell and two sleeps), once all three run. */
export async function startTree(): Promise<GroupChild> {
  const child = spawnInOwnGroup(
    { program: "/bin/sh", args: ["-c", TREE] },
    { cwd: "/", env: { PATH }, stdin: "null", output: "null" },
  );
  await waitUntil(async () => (await livingGroupMembers(child.pid)).length === 3, "the group");
  return child;
}

/** Waits until the group of `tree` has no living member. */
export function treeEnded(tree: GroupChild): Promise<void> {
  return waitUntil(async () => (await livingGroupMembers(tree.pid)).length === 0, "the end");
}

/** SIGKILLs what is left of the groups and reaps their leaders. */
export async function cleanUp(children: readonly GroupChild[]): Promise<void> {
  for (const child of children) {
    try {
      Deno.kill(-child.pid, "SIGKILL");
    } catch {
      // The group is gone already.
    }
  }
  await Promise.all(children.map((child) => child.status));
}
