import type { GroupChild } from "../../src/os/process/group_child.ts";
import {
  createOrphanGuard,
  LOG_COMPACT_BYTES,
  SUPERVISOR_NAME,
  SUPERVISOR_SCRIPT,
} from "../../src/os/process/orphan_guard.ts";
import { spawnInOwnGroup } from "../../src/os/process/process_group.ts";
import { assert, assertEquals, assertLess, assertStringIncludes } from "../helpers/assert.ts";
import { cleanUp, PATH, startTree, TREE, treeEnded, withGuard } from "./orphan_guard_fixtures.ts";
import { livingGroupMembers, livingPids } from "./process_probe.ts";
import { waitUntil } from "../helpers/wait_until.ts";

/** Whether the process ignores SIGHUP, SIGINT and SIGTERM (its `trap` has run). */
async function ignoresTermination(pid: number): Promise<boolean> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const mask = BigInt(`0x${/^SigIgn:\s*([0-9a-f]+)$/m.exec(status)?.[1] ?? "0"}`);
  const wanted = (1n << 0n) | (1n << 1n) | (1n << 14n);
  return (mask & wanted) === wanted;
}

Deno.test("end of file on the guard's pipe ends every registered group whole, and no other", async () => {
  const failures: string[] = [];
  await withGuard({ onFailure: (message) => failures.push(message) }, async (guard) => {
    const trees = [await startTree(), await startTree(), await startTree()];
    const [registered, released, unknown] = trees as [
      GroupChild,
      GroupChild,
      GroupChild,
    ];
    try {
      guard.register(registered.pid);
      guard.register(released.pid);
      guard.release(released.pid);
      const status = await guard.close();
      assertEquals([status?.code, status?.signal], [0, null], "the supervisor exits normally");
      await waitUntil(
        async () => (await livingGroupMembers(registered.pid)).length === 0,
        "the registered group to end",
      );
      assertEquals((await registered.status).signal, "SIGTERM", "SIGTERM first");
      assertEquals((await livingGroupMembers(released.pid)).length, 3, "a released group lives");
      assertEquals((await livingGroupMembers(unknown.pid)).length, 3, "an unknown group lives");
      assertEquals(failures, []);
    } finally {
      await cleanUp(trees);
    }
  });
});

Deno.test("a group that ignores SIGTERM is SIGKILLed after the grace", async () => {
  await withGuard({ graceSeconds: 1 }, async (guard) => {
    const stubborn = spawnInOwnGroup(
      { program: "/bin/sh", args: ["-c", `trap '' TERM; ${TREE}`] },
      { cwd: "/", env: { PATH }, stdin: "null", output: "null" },
    );
    try {
      await waitUntil(async () => (await livingGroupMembers(stubborn.pid)).length === 3, "it");
      guard.register(stubborn.pid);
      await guard.close();
      await treeEnded(stubborn);
      assertEquals((await stubborn.status).signal, "SIGKILL");
    } finally {
      await cleanUp([stubborn]);
    }
  });
});

Deno.test({
  name:
    "the supervisor ignores SIGINT, SIGTERM and SIGHUP sent to its group: only end of file ends it",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const failures: string[] = [];
    await withGuard({ onFailure: (message) => failures.push(message) }, async (guard) => {
      const tree = await startTree();
      try {
        guard.register(tree.pid);
        const supervisor = guard.supervisorPid;
        assert(supervisor !== undefined, "the first registration started the supervisor");
        await waitUntil(() => ignoresTermination(supervisor), "the supervisor's trap");
        for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
          Deno.kill(-supervisor, signal);
        }
        assertEquals((await livingGroupMembers(tree.pid)).length, 3, "the signals ended nothing");
        const status = await guard.close();
        assertEquals([status?.code, status?.signal], [0, null], "it lived until end of file");
        await treeEnded(tree);
        assertEquals(failures, []);
      } finally {
        await cleanUp([tree]);
      }
    });
  },
});

Deno.test("with every group released, end of file ends the supervisor at once, without the grace", async () => {
  await withGuard({ graceSeconds: 30 }, async (guard) => {
    const tree = await startTree();
    try {
      guard.register(tree.pid);
      guard.release(tree.pid);
      const started = performance.now();
      const status = await guard.close();
      assertEquals([status?.code, status?.signal], [0, null]);
      assertLess(performance.now() - started, 20_000, "it did not wait the 30 s grace");
      assertEquals((await livingGroupMembers(tree.pid)).length, 3);
    } finally {
      await cleanUp([tree]);
    }
  });
});

Deno.test("the supervisor removes its log as soon as it has opened it", async () => {
  await withGuard({}, async (guard, dir) => {
    const tree = await startTree();
    try {
      guard.register(tree.pid);
      await waitUntil(async () => {
        for await (const _ of Deno.readDir(dir)) return false;
        return true;
      }, "the log to be removed");
      const status = await guard.close();
      assertEquals(status?.code, 0);
      await treeEnded(tree);
    } finally {
      await cleanUp([tree]);
    }
  });
});

Deno.test({
  name: "a long-lived group stays registered while the log is rewritten to stay small",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await withGuard({}, async (guard) => {
      const tree = await startTree();
      try {
        guard.register(tree.pid);
        // A number that names no group: registered and released many times, never signalled.
        const passing = 2 ** 22 + 1;
        for (let i = 0; i < 5000; i++) {
          guard.register(passing);
          guard.release(passing);
        }
        // The supervisor holds the (removed) log as its fd 3, once its shell has opened it: on a
        // busy machine that can come after the loop above.
        const held = `/proc/${guard.supervisorPid}/fd/3`;
        await waitUntil(() => Deno.stat(held).then(() => true, () => false), "the log held");
        const size = Deno.statSync(held).size;
        assertLess(size, LOG_COMPACT_BYTES + 64, "the log was compacted");
        await guard.close();
        await treeEnded(tree);
      } finally {
        await cleanUp([tree]);
      }
    });
  },
});

Deno.test("a guard that nothing registered with starts no process and writes no file", async () => {
  await withGuard({}, async (guard) => {
    guard.release(12345);
    assertEquals(guard.supervisorPid, undefined);
    assertEquals(await guard.close(), undefined);
  });
});

Deno.test("a guard whose directory cannot be made says so once, and guards nothing", async () => {
  const failures: string[] = [];
  const file = await Deno.makeTempFile({ prefix: "orphan_guard_test_" });
  try {
    const guard = createOrphanGuard({
      dir: `${file}/sub`,
      onFailure: (message) => failures.push(message),
    });
    guard.register(12345);
    guard.register(12346);
    assertEquals(guard.supervisorPid, undefined);
    assertEquals(await guard.close(), undefined);
    assertEquals(failures.length, 1, failures.join("\n"));
    assertStringIncludes(failures[0]!, `Cannot start the orphan guard in "${file}/sub": `);
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("a supervisor that dies is reported once, and the guard then does nothing", async () => {
  const failures: string[] = [];
  let reported: () => void = () => {};
  const report = new Promise<void>((resolve) => reported = resolve);
  const onFailure = (message: string) => {
    failures.push(message);
    reported();
  };
  await withGuard({ onFailure }, async (guard) => {
    const tree = await startTree();
    try {
      guard.register(tree.pid);
      Deno.kill(guard.supervisorPid!, "SIGKILL");
      await report;
      guard.register(tree.pid);
      guard.release(tree.pid);
      assertEquals((await guard.close())?.signal, "SIGKILL");
      assertEquals(failures.length, 1, failures.join("\n"));
      assertStringIncludes(failures[0]!, "The orphan guard's process ended (signal SIGKILL)");
      assertStringIncludes(failures[0]!, "may outlive the agent if it is killed");
      assertEquals((await livingGroupMembers(tree.pid)).length, 3);
    } finally {
      await cleanUp([tree]);
    }
  });
});

/**
 * The script itself on a log we write by hand: it starts, reads `stdin` (then end of file),
 * replays `log`, and exits. Fails if the log file is still there afterwards.
 */
async function runSupervisor(log: string, stdin = ""): Promise<Deno.CommandStatus> {
  const path = await Deno.makeTempFile({ prefix: "orphan_guard_log_" });
  await Deno.writeTextFile(path, log);
  const child = new Deno.Command("/bin/sh", {
    args: ["-c", SUPERVISOR_SCRIPT, SUPERVISOR_NAME, "1", path],
    env: { PATH },
    clearEnv: true,
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(stdin));
  await writer.close();
  const status = await child.status;
  const left = await Deno.stat(path).then(() => true, () => false);
  if (left) await Deno.remove(path);
  assertEquals(left, false, "the supervisor removed its log");
  return status;
}

Deno.test("log lines that are not a group id above 1 are ignored, and the valid ones count", async () => {
  const tree = await startTree();
  try {
    // "+0" and "+00" would be its own group ("kill -- -0"): it would SIGKILL itself.
    const status = await runSupervisor(
      `+abc\n+0\n+00\n\n+-5\n-\n+\n${tree.pid}\n+ ${tree.pid}\n+${tree.pid}x\n+${tree.pid}\n`,
    );
    assertEquals([status.code, status.signal], [0, null], "the supervisor did not signal itself");
    await treeEnded(tree);
  } finally {
    await cleanUp([tree]);
  }
});

Deno.test("what arrives on the supervisor's stdin is not a registration: only its end counts", async () => {
  const tree = await startTree();
  try {
    const status = await runSupervisor("", `+${tree.pid}\n`);
    assertEquals(status.code, 0);
    assertEquals((await livingGroupMembers(tree.pid)).length, 3);
  } finally {
    await cleanUp([tree]);
  }
});

Deno.test("a registered leader that has not made its group yet is signalled by its pid", async () => {
  // In the test's own group, as a child spawned through setsid(1) is for an instant.
  const child = new Deno.Command("sleep", { args: ["600"], stdout: "null", stderr: "null" })
    .spawn();
  try {
    await runSupervisor(`+${child.pid}\n`);
    assertEquals((await child.status).signal, "SIGTERM");
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // It is gone.
    }
    await child.status;
  }
});

Deno.test("a group registered twice stays registered until it is released twice", async () => {
  const tree = await startTree();
  try {
    const status = await runSupervisor(`+${tree.pid}\n+${tree.pid}\n-${tree.pid}\n`);
    assertEquals(status.code, 0);
    await waitUntil(
      async () => (await livingGroupMembers(tree.pid)).length === 0,
      "the group still registered once to end",
    );
  } finally {
    await cleanUp([tree]);
  }
  assertEquals(await livingPids([tree.pid]), []);
});
