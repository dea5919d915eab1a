/**
 * Where the orphan guard keeps its log: a directory the agent can write, made private, with what
 * a dead agent left there cleaned up; and which directory the program gives it.
 */
import { relative } from "node:path";
import {
  createOrphanGuard,
  orphanGuardDirs,
  type OrphanGuardOptions,
  STALE_LOG_MS,
} from "../../src/os/process/orphan_guard.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { withTempProject } from "../helpers/run_cli.ts";
import { exists } from "./engine_project.ts";
import { cleanUp, startTree, treeEnded } from "./orphan_guard_fixtures.ts";

/** A number that names no group: registered, it starts the supervisor and is never signalled. */
const NO_GROUP = 2 ** 22 + 1;

/**
 * A relative path to `target` that names it from the working directory and nothing from "/",
 * where the supervisor runs: it first goes down into a directory "/" does not have.
 */
async function relativeFromHereOnly(target: string): Promise<string> {
  const cwd = Deno.cwd();
  for await (const entry of Deno.readDir(cwd)) {
    if (!entry.isDirectory || await exists(`/${entry.name}`)) continue;
    return `${entry.name}/${relative(`${cwd}/${entry.name}`, target)}`;
  }
  throw new Error(`No directory in "${cwd}" that "/" lacks`);
}

async function namesIn(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

/**
 * A guard with these directories ends a registered group at end of file, reports no failure,
 * and leaves `logDir` (where its log went) empty.
 */
async function assertGuardWorks(
  dirs: Pick<OrphanGuardOptions, "dir" | "fallbackDir">,
  logDir: string,
): Promise<void> {
  const failures: string[] = [];
  const guard = createOrphanGuard({ ...dirs, onFailure: (message) => failures.push(message) });
  const tree = await startTree();
  try {
    guard.register(tree.pid);
    assert(guard.supervisorPid !== undefined, "the supervisor runs");
    const status = await guard.close();
    assertEquals([failures, status?.code], [[], 0]);
    await treeEnded(tree);
    assertEquals(await namesIn(logDir), [], "the log is gone");
  } finally {
    await cleanUp([tree]);
  }
}

Deno.test("a relative log directory is the agent's, not the supervisor's: the guard still ends the groups", async () => {
  await withTempProject({}, async (dir) => {
    await assertGuardWorks({ dir: await relativeFromHereOnly(`${dir}/state`) }, `${dir}/state`);
  });
});

Deno.test("a log directory that cannot be made gives way to the fallback, and the guard works", async () => {
  await withTempProject({}, async (dir) => {
    await Deno.writeTextFile(`${dir}/file`, "");
    await assertGuardWorks(
      { dir: `${dir}/file/state`, fallbackDir: `${dir}/fallback` },
      `${dir}/fallback`,
    );
  });
});

Deno.test("when neither directory can be made, the failure names both, once", async () => {
  await withTempProject({}, async (dir) => {
    await Deno.writeTextFile(`${dir}/file`, "");
    const failures: string[] = [];
    const guard = createOrphanGuard({
      dir: `${dir}/file/a`,
      fallbackDir: `${dir}/file/b`,
      onFailure: (message) => failures.push(message),
    });
    guard.register(NO_GROUP);
    guard.register(NO_GROUP);
    assertEquals(await guard.close(), undefined);
    assertEquals(failures.length, 1, failures.join("\n"));
    assert(
      failures[0]!.startsWith(
        `Cannot start the orphan guard in "${dir}/file/a" or "${dir}/file/b": `,
      ),
      failures[0],
    );
  });
});

Deno.test("the log directory the guard makes is private (0700)", {
  ignore: Deno.build.os === "windows",
}, async () => {
  await withTempProject({}, async (dir) => {
    const guard = createOrphanGuard({ dir: `${dir}/state/llama-agent` });
    guard.register(NO_GROUP);
    guard.release(NO_GROUP);
    await guard.close();
    for (const made of [`${dir}/state`, `${dir}/state/llama-agent`]) {
      assertEquals((Deno.statSync(made).mode ?? 0) & 0o777, 0o700, made);
    }
  });
});

Deno.test("a log left by an agent that died before its supervisor opened it is removed at the next start", async () => {
  await withTempProject({}, async (dir) => {
    const old = new Date(Date.now() - STALE_LOG_MS - 60_000);
    for (const name of ["orphan-guard-stale", "notes"]) {
      await Deno.writeTextFile(`${dir}/${name}`, "+12345\n");
      await Deno.utime(`${dir}/${name}`, old, old);
    }
    // Another agent's, not yet opened by its supervisor: still needed.
    await Deno.writeTextFile(`${dir}/orphan-guard-recent`, "+12346\n");
    const guard = createOrphanGuard({ dir });
    guard.register(NO_GROUP);
    guard.release(NO_GROUP);
    await guard.close();
    assertEquals(await namesIn(dir), ["notes", "orphan-guard-recent"]);
  });
});

Deno.test("the program's log directory: $XDG_STATE_HOME when absolute, else $HOME's, which is also the fallback", () => {
  const env = (values: Record<string, string>) => (name: string) => values[name];
  assertEquals(orphanGuardDirs(env({ HOME: "/h", XDG_STATE_HOME: "/x" })), {
    dir: "/x/llama-agent",
    fallbackDir: "/h/.local/state/llama-agent",
  });
  assertEquals(orphanGuardDirs(env({ HOME: "/h" })), { dir: "/h/.local/state/llama-agent" });
  // The XDG base directory specification: a relative path is to be ignored.
  assertEquals(orphanGuardDirs(env({ HOME: "/h", XDG_STATE_HOME: "state" })), {
    dir: "/h/.local/state/llama-agent",
  });
  assertEquals(orphanGuardDirs(env({ HOME: "/h", XDG_STATE_HOME: "" })), {
    dir: "/h/.local/state/llama-agent",
  });
  assertEquals(orphanGuardDirs(env({ XDG_STATE_HOME: "/x" })), { dir: "/x/llama-agent" });
  assertEquals(orphanGuardDirs(env({})), undefined);
});
