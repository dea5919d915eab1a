import type { GroupChild } from "../../src/os/process/group_child.ts";
import { GroupStdioTransport } from "../../src/agent/mcp/group_stdio_transport.ts";
import { runCommand } from "../../src/os/process/command_runner.ts";
import { guardGroup, installOrphanGuard, spawnGuarded } from "../../src/os/process/guard_group.ts";
import type { OrphanGuard } from "../../src/os/process/orphan_guard.ts";
import { assertEquals, assertMatch } from "../helpers/assert.ts";

const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";

/** Installs a guard that records what it is told, for the length of `fn`. */
async function withRecordingGuard(fn: (calls: string[]) => Promise<void>): Promise<void> {
  const calls: string[] = [];
  const guard: OrphanGuard = {
    // Not recorded: every spawn starts it (see the spawnGuarded test below).
    start: () => {},
    register: (group) => calls.push(`+${group}`),
    release: (group) => calls.push(`-${group}`),
    supervisorPid: undefined,
    close: () => Promise.resolve(undefined),
  };
  const previous = installOrphanGuard(guard);
  try {
    await fn(calls);
  } finally {
    installOrphanGuard(previous);
  }
}

function shell(command: string, timeoutMs = 10_000, cwd = "/") {
  return runCommand({ commandLine: { kind: "shell", command }, cwd, env: { PATH }, timeoutMs });
}

Deno.test("a command's group is registered when it starts and released once it has exited", async () => {
  await withRecordingGuard(async (calls) => {
    const result = await shell("echo $$");
    assertEquals(result.kind, "exited");
    const group = result.kind === "exited" ? Number(result.stdout.text) : NaN;
    assertEquals(calls, [`+${group}`, `-${group}`]);
  });
});

Deno.test("a command killed at its timeout is released once its group was ended", async () => {
  await withRecordingGuard(async (calls) => {
    const result = await shell("sleep 600", 50);
    assertEquals(result.kind, "timed_out");
    assertEquals(calls.length, 2, calls.join(" "));
    assertMatch(calls[0]!, /^\+\d+$/);
    assertEquals(calls[1], calls[0]!.replace("+", "-"));
  });
});

Deno.test("a command that cannot start registers nothing", async () => {
  await withRecordingGuard(async (calls) => {
    const result = await shell("true", 10_000, "/nonexistent/directory");
    assertEquals(result.kind, "spawn_failed");
    assertEquals(calls, []);
  });
});

Deno.test("an MCP stdio server's group is registered while it runs and released after close", async () => {
  await withRecordingGuard(async (calls) => {
    const transport = new GroupStdioTransport({
      command: "/bin/sh",
      args: ["-c", "sleep 600"],
      env: { PATH },
      cwd: "/",
      killGraceMs: 500,
    });
    await transport.start();
    assertEquals(calls.length, 1);
    assertMatch(calls[0]!, /^\+\d+$/);
    await transport.close();
    assertEquals(calls, [calls[0]!, calls[0]!.replace("+", "-")]);
  });
});

Deno.test("without an installed guard, registering does nothing and its release is harmless", async () => {
  const previous = installOrphanGuard(undefined);
  let release: () => void;
  try {
    release = guardGroup(12345);
  } finally {
    installOrphanGuard(previous);
  }
  // A guard installed later is not told to release a group it was never told about.
  await withRecordingGuard((calls) => {
    release();
    release();
    assertEquals(calls, []);
    return Promise.resolve();
  });
});

Deno.test("releasing twice tells the guard once", async () => {
  await withRecordingGuard((calls) => {
    const release = guardGroup(4242);
    release();
    release();
    assertEquals(calls, ["+4242", "-4242"]);
    return Promise.resolve();
  });
});

Deno.test("spawnGuarded starts the guard before the spawn and registers the group after it", () => {
  const calls: string[] = [];
  const previous = installOrphanGuard({
    start: () => calls.push("start"),
    register: (group) => calls.push(`+${group}`),
    release: (group) => calls.push(`-${group}`),
    supervisorPid: undefined,
    close: () => Promise.resolve(undefined),
  });
  try {
    const spawned = { pid: 4321 } as GroupChild;
    const { child, release } = spawnGuarded(() => (calls.push("spawn"), spawned));
    release();
    assertEquals(child, spawned);
    // The supervisor runs before the group exists: killed at any moment after the spawn, the
    // agent leaves no group the supervisor could not yet know of but for the register itself.
    assertEquals(calls, ["start", "spawn", "+4321", "-4321"]);
  } finally {
    installOrphanGuard(previous);
  }
});
