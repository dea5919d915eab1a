import { assert, assertEquals, assertLess, assertMatch } from "../helpers/assert.ts";
import {
  type CommandRunOptions,
  type CommandRunResult,
  runCommand,
} from "../../src/os/process/command_runner.ts";
import { fixture, livingGroupMembers, livingPids, readPidFile } from "./process_probe.ts";

const MiB = 1024 * 1024;
const encoder = new TextEncoder();

function shell(command: string, options: Partial<CommandRunOptions> = {}) {
  return runCommand({
    commandLine: { kind: "shell", command },
    cwd: Deno.cwd(),
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    timeoutMs: 10_000,
    ...options,
  });
}

function exec(command: string, args: string[], options: Partial<CommandRunOptions> = {}) {
  return shell("", { commandLine: { kind: "exec", command, args }, ...options });
}

function assertExited(result: CommandRunResult) {
  assertEquals(result.kind, "exited", JSON.stringify(result));
  if (result.kind !== "exited") throw new Error("unreachable");
  return result;
}

async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "command_runner_test_" });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a shell command runs under /bin/sh with stdout and stderr captured apart", async () => {
  const result = assertExited(await shell("echo out; echo err >&2; readlink /proc/$$/exe"));
  assertEquals(result.exitCode, 0);
  assertEquals(result.signal, null);
  assertMatch(result.stdout.text, /^out\n\/(usr\/)?bin\/(dash|sh|bash)\n$/);
  assertEquals(result.stderr, { text: "err\n", discardedBytes: 0 });
});

Deno.test("exit codes 0, 2 and others are reported as they are", async () => {
  for (const code of [0, 2, 1, 127]) {
    const result = assertExited(await exec(fixture("exit_with_code.sh"), [String(code)]));
    assertEquals(result.exitCode, code);
    assertEquals(result.stdout.text, `stdout before exit ${code}\n`);
    assertEquals(result.stderr.text, `stderr before exit ${code}\n`);
  }
});

Deno.test("a hook that dies of a signal is reported as exited with that signal", async () => {
  const result = assertExited(await exec(fixture("crash.sh"), []));
  assertEquals(result.signal, "SIGSEGV");
  assert(result.exitCode !== 0);
  assertEquals(result.stderr.text, "about to crash\n");
});

Deno.test("stdin gets exactly the given bytes, then end of file", async () => {
  const payload = '{"hook_event_name":"Stop","text":"h\u00e9llo"}\n';
  const result = assertExited(
    await exec(fixture("echo_stdin.sh"), [], { stdin: encoder.encode(payload) }),
  );
  assertEquals(result.stdout.text, payload);
});

Deno.test("a hook that exits without reading a 4 MiB stdin does not hang or throw", async () => {
  const started = performance.now();
  const result = assertExited(
    await exec(fixture("never_reads_stdin.sh"), [], { stdin: new Uint8Array(4 * MiB) }),
  );
  assertEquals(result.exitCode, 0);
  assertEquals(result.stdout.text, "left stdin unread\n");
  assertLess(performance.now() - started, 2000, "ms to finish");
});

Deno.test("a hook that never reads a 4 MiB stdin and never ends times out cleanly", async () => {
  const result = await exec(fixture("sleep_forever.sh"), [], {
    stdin: new Uint8Array(4 * MiB),
    timeoutMs: 300,
    killGraceMs: 200,
  });
  assertEquals(result.kind, "timed_out");
  assertLess(result.durationMs, 2000, "ms to time out");
});

Deno.test("a 50 MiB flood is capped at 1 MiB with the rest counted", async () => {
  const result = assertExited(await exec(fixture("flood_stdout.sh"), []));
  assertEquals(result.exitCode, 0);
  assertEquals(result.stdout.text, "x".repeat(MiB));
  assertEquals(result.stdout.discardedBytes, 50 * MiB - MiB);
  assertEquals(result.stderr.text, "flood done\n");
});

Deno.test("a 50 MiB flood leaves the runner's memory bounded", async () => {
  // Measured in a process of its own: parallel test modules share this one's memory.
  const runner = new URL("../../src/os/process/command_runner.ts", import.meta.url).href;
  const probe = `
    import { runCommand } from ${JSON.stringify(runner)};
    const peak = () => Number(/VmHWM:\\s+(\\d+)/.exec(Deno.readTextFileSync("/proc/self/status"))[1]) * 1024;
    const run = (args) => runCommand({ commandLine: { kind: "exec", command: "/bin/sh", args },
      cwd: "/", env: {}, timeoutMs: 20000 });
    await run(["-c", "echo warm"]);
    const before = peak();
    const result = await run([${JSON.stringify(fixture("flood_stdout.sh"))}]);
    console.log(JSON.stringify({ grew: peak() - before, discarded: result.stdout.discardedBytes }));
  `;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", probe],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  assertEquals(code, 0, decoder.decode(stderr));
  const { grew, discarded } = JSON.parse(decoder.decode(stdout));
  assertEquals(discarded, 49 * MiB);
  // Keeping the flood would cost at least its 50 MiB; a bounded reader costs a few buffers.
  assertLess(grew, 24 * MiB, "bytes of peak memory growth");
});

Deno.test("caps are options, for stdout and stderr each", async () => {
  const result = assertExited(
    await shell("printf 0123456789; printf abcdef >&2", { stdoutCapBytes: 4, stderrCapBytes: 0 }),
  );
  assertEquals(result.stdout, { text: "0123", discardedBytes: 6 });
  assertEquals(result.stderr, { text: "", discardedBytes: 6 });
});

Deno.test("exec form passes arguments as they are, without a shell", async () => {
  const args = ["$HOME", "${HOME}", "a b", "*", "; echo injected"];
  const result = assertExited(
    await exec(fixture("print_args.sh"), args, { env: { HOME: "/should/not/appear" } }),
  );
  assertEquals(result.stdout.text, args.map((arg) => arg + "\n").join(""));
});

Deno.test("a missing binary is a spawn failure, not a throw", async () => {
  const result = await exec("/nonexistent/hook-binary", []);
  assertEquals(result.kind, "spawn_failed");
  if (result.kind !== "spawn_failed") return;
  assertMatch(result.message, /^Cannot start "\/nonexistent\/hook-binary": /);
});

Deno.test("a missing working directory is a spawn failure", async () => {
  const result = await shell("true", { cwd: "/nonexistent/project" });
  assertEquals(result.kind, "spawn_failed");
  if (result.kind !== "spawn_failed") return;
  assertMatch(result.message, /\/nonexistent\/project/);
});

Deno.test("the child runs in the given cwd with exactly the given environment", async () => {
  await withTempDir(async (dir) => {
    const result = assertExited(
      await exec(fixture("print_env.sh"), [], { cwd: dir, env: { ONLY_VAR: "1" } }),
    );
    const lines = result.stdout.text.trim().split("\n");
    assertEquals(lines[0], `cwd=${await Deno.realPath(dir)}`);
    // sh itself adds PWD (and may add OLDPWD/SHLVL); nothing comes from our environment.
    const names = lines.slice(1).map((line) => line.split("=")[0]);
    assert(names.includes("ONLY_VAR"));
    assert(!names.includes("HOME") && !names.includes("PATH"), names.join(","));
  });
});

Deno.test("a timed-out hook's whole process group is gone afterwards", async () => {
  await withTempDir(async (dir) => {
    const pidFile = `${dir}/pids`;
    const run = exec(fixture("write_pid_tree.sh"), [pidFile], {
      timeoutMs: 500,
      killGraceMs: 300,
    });
    const pids = await readPidFile(pidFile);
    assertEquals(pids.length, 3);
    assertEquals(await livingPids(pids), pids, "all three run before the timeout");
    const result = await run;
    assertEquals(result.kind, "timed_out");
    assertEquals(await livingPids(pids), []);
    assertEquals(await livingGroupMembers(pids[0]!), []);
  });
});

Deno.test("a group that ignores SIGTERM gets SIGKILL after the grace", async () => {
  await withTempDir(async (dir) => {
    const pidFile = `${dir}/pids`;
    const run = exec(fixture("ignore_sigterm.sh"), [pidFile], { timeoutMs: 300, killGraceMs: 200 });
    const pids = await readPidFile(pidFile);
    const result = await run;
    assertEquals(result.kind, "timed_out");
    assert(result.durationMs >= 500 && result.durationMs < 2000, `${result.durationMs} ms`);
    assertEquals(await livingPids(pids), []);
  });
});

Deno.test("aborting kills the whole group in well under a second", async () => {
  await withTempDir(async (dir) => {
    const pidFile = `${dir}/pids`;
    const controller = new AbortController();
    const run = exec(fixture("write_pid_tree.sh"), [pidFile], {
      signal: controller.signal,
      killGraceMs: 200,
    });
    const pids = await readPidFile(pidFile);
    const abortedAt = performance.now();
    controller.abort();
    const result = await run;
    const tookMs = performance.now() - abortedAt;
    assertEquals(result.kind, "cancelled");
    assertLess(tookMs, 1000, "ms from abort to result");
    assertEquals(await livingPids(pids), []);
  });
});

Deno.test("an already aborted signal starts nothing", async () => {
  const result = await shell("echo should-not-run", { signal: AbortSignal.abort() });
  assertEquals(result, {
    kind: "cancelled",
    stdout: { text: "", discardedBytes: 0 },
    stderr: { text: "", discardedBytes: 0 },
    durationMs: result.durationMs,
  });
});

Deno.test("a grandchild holding stdout open does not keep the hook running", async () => {
  await withTempDir(async (dir) => {
    const pidFile = `${dir}/pids`;
    const result = assertExited(
      await exec(fixture("background_holds_stdout.sh"), [pidFile], {
        drainMs: 100,
        killGraceMs: 200,
        timeoutMs: 10_000,
      }),
    );
    assertEquals(result.exitCode, 0);
    assertEquals(result.stdout.text, "leader done\n");
    assertLess(result.durationMs, 1500, "ms to finish");
    assertEquals(await livingPids(await readPidFile(pidFile)), []);
  });
});

Deno.test("whatever a timed-out hook wrote before it was killed is kept", async () => {
  const result = await shell("echo partial; echo oops >&2; exec sleep 1000", {
    timeoutMs: 300,
    killGraceMs: 100,
  });
  assertEquals(result.kind, "timed_out");
  if (result.kind !== "timed_out") return;
  assertEquals(result.stdout.text, "partial\n");
  assertEquals(result.stderr.text, "oops\n");
});
