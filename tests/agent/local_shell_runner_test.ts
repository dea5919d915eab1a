import { assert, assertEquals, assertLess } from "../helpers/assert.ts";
import { LocalShellRunner } from "../../src/agent/shell/local_shell_runner.ts";
import type { ShellRunRequest } from "../../src/agent/shell/shell_runner.ts";
import { livingPids, readPidFile } from "../hooks/process_probe.ts";
import { withTempDir } from "./temp_dir.ts";

const ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", GREETING: "hi" };

function run(
  command: string,
  options: Partial<ShellRunRequest> & { outputCapBytes?: number } = {},
) {
  const { outputCapBytes, ...request } = options;
  return new LocalShellRunner({ env: ENV, outputCapBytes }).run({
    command,
    cwd: Deno.cwd(),
    timeoutMs: 10_000,
    ...request,
  });
}

Deno.test("a command's stdout and stderr come back interleaved, with its exit code", async () => {
  const result = await run("echo one; echo two >&2; echo three; exit 4");
  assert(result.kind === "exited");
  assertEquals(result.output, "one\ntwo\nthree\n");
  assertEquals(result.exitCode, 4);
  assertEquals(result.signal, null);
  assertEquals(result.truncated, false);
  assertEquals(result.terminalId, undefined);
});

Deno.test("a command runs in the session cwd with the given environment and no stdin", async () => {
  await withTempDir({}, async (dir) => {
    const result = await run('pwd; echo "$GREETING"; cat; echo done', { cwd: dir });
    assert(result.kind === "exited");
    assertEquals(result.output, `${dir}\nhi\ndone\n`);
    assertEquals(result.exitCode, 0);
  });
});

Deno.test("a syntax error in the command is reported in the output", async () => {
  const result = await run("if then fi (");
  assert(result.kind === "exited");
  assertEquals(result.exitCode, 2);
  assert(/[Ss]yntax error/.test(result.output), result.output);
});

Deno.test("output past the cap is cut and the cut is counted", async () => {
  const result = await run("head -c 5000 /dev/zero | tr '\\0' x", { outputCapBytes: 1000 });
  assert(result.kind === "exited");
  assertEquals(result.output, "x".repeat(1000));
  assertEquals(result.truncated, true);
  assertEquals(result.omittedBytes, 4000);
});

Deno.test("a timeout kills the whole process group: no process survives", async () => {
  await withTempDir({}, async (dir) => {
    const pidFile = `${dir}/pids`;
    const started = performance.now();
    const result = await run(
      `sleep 30 & a=$!; sleep 30 & b=$!; echo "$a $b $$" > ${pidFile}; echo started; wait`,
      { timeoutMs: 300 },
    );
    assertLess(performance.now() - started, 3000);
    assert(result.kind === "timed_out", JSON.stringify(result));
    assertEquals(result.output, "started\n");
    const pids = await readPidFile(pidFile);
    assertEquals(pids.length, 3);
    // `ps`, not `kill -0`: a killed child reparented to init answers kill -0 as a zombie until
    // it is reaped, though it no longer runs.
    assertEquals(await livingPids(pids), []);
  });
});

Deno.test("a cancel stops the command within 500 ms", async () => {
  const controller = new AbortController();
  const running = run("sleep 30", { signal: controller.signal });
  await new Promise((resolve) => setTimeout(resolve, 100));
  const aborted = performance.now();
  controller.abort();
  const result = await running;
  assertLess(performance.now() - aborted, 500);
  assertEquals(result.kind, "cancelled");
});

Deno.test("background processes do not outlive the command", async () => {
  await withTempDir({}, async (dir) => {
    const pidFile = `${dir}/pids`;
    const result = await run(`sleep 30 & echo "$!" > ${pidFile}; echo left`);
    assert(result.kind === "exited");
    assertEquals(result.output, "left\n");
    assertEquals(await livingPids(await readPidFile(pidFile)), []);
  });
});

Deno.test("a cwd that does not exist is a failed run with the reason", async () => {
  const result = await run("true", { cwd: "/nonexistent/dir/for/test" });
  assert(result.kind === "failed");
  assert(result.message.startsWith('Cannot start "/bin/sh -c true": '), result.message);
});
