/**
 * Hooks that fail, hang or misbehave, run for real through the whole engine: a failure is a
 * non-blocking error unless the hook says `onFailure:"block"`, nothing hangs, no process outlives
 * its hook, and output is bounded (hooks.md §7, §11).
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { fixture, livingGroupMembers, livingPids, readPidFile } from "./process_probe.ts";
import { fire, group, notHanging, settings, withProject } from "./engine_project.ts";

const CRASH = 'cat > /dev/null\necho "about to crash" >&2\nkill -SEGV $$';
/** The crash script spawned directly (exec form), so it is the process that dies. */
const CRASH_HOOK = { type: "command", command: "./hooks/crash.sh", args: [] };
/** Starts a background sleep, writes "<own pid> <sleep pid>" to out/pids, then waits. */
const HANG = 'sleep 1000 &\necho "$$ $!" > out/pids\nwait';

function command(text: string, extra: Record<string, unknown> = {}) {
  return { type: "command", command: text, ...extra };
}

Deno.test("a hook that crashes on a signal is a non-blocking error: the action proceeds", async () => {
  await withProject({
    // Exec form, so the crashing script is the hook process itself and dies of the signal.
    project: settings({ PreToolUse: [group("shell", CRASH_HOOK)] }),
    scripts: { "crash.sh": CRASH },
  }, async (project) => {
    const { firing } = await fire(project, "PreToolUse", { tool_name: "shell" });
    const result = firing.runs[0]?.result;
    assertEquals(result?.kind === "exited" && result.signal, "SIGSEGV");
    assertEquals(firing.decision.verdict, { kind: "none" });
    assertEquals(firing.decision.errors, [{
      by: "project:/hooks/PreToolUse/0/hooks/0",
      command: "./hooks/crash.sh",
      cause: "signal",
      detail: "about to crash",
      timedOut: false,
    }]);
  });
});

Deno.test("a crash under /bin/sh -c is a non-blocking error as well", async () => {
  await withProject({
    project: settings({ PreToolUse: [group("shell", "./hooks/crash.sh")] }),
    scripts: { "crash.sh": CRASH },
  }, async (project) => {
    const { firing } = await fire(project, "PreToolUse", { tool_name: "shell" });
    // Some shells report the child's death as exit 128 + 11 instead of dying of it themselves.
    assertEquals(firing.runs.map((run) => run.outcome.kind), ["error"]);
    assertEquals(firing.decision.errors.map((e) => e.detail), ["about to crash"]);
    assertEquals(firing.decision.verdict, { kind: "none" });
  });
});

Deno.test("a hook that times out is a non-blocking error too (not a block, hooks.md §11)", async () => {
  await withProject({
    project: settings({ PreToolUse: [group("shell", command("./hooks/hang.sh", { timeout: 1 }))] }),
    scripts: { "hang.sh": HANG },
  }, async (project) => {
    const { firing } = await fire(project, "PreToolUse", { tool_name: "shell" });
    const result = firing.runs[0]?.result;
    assertEquals(result?.kind === "failed" && result.failure, "timeout");
    assertEquals(firing.decision.verdict, { kind: "none" });
    const error = firing.decision.errors[0];
    assertEquals(error?.cause, "timeout");
    assertEquals(error?.timedOut, true);
    assertEquals(error?.detail, 'Hook command "./hooks/hang.sh" did not finish within 1 s');
  });
});

Deno.test('with onFailure:"block" a crash and a timeout both block', async () => {
  await withProject({
    project: settings({
      PreToolUse: [
        group("shell", { ...CRASH_HOOK, onFailure: "block" }),
        group("shell", command("./hooks/hang.sh", { timeout: 1, onFailure: "block" })),
      ],
    }),
    scripts: { "crash.sh": CRASH, "hang.sh": HANG },
  }, async (project) => {
    const { firing } = await fire(project, "PreToolUse", { tool_name: "shell" });
    const outcomes = firing.runs.map((run) => run.outcome);
    assertEquals(
      outcomes.map((o) => o.kind === "block" ? [o.cause, o.failure, o.timedOut] : o.kind),
      [["on_failure", "signal", false], ["on_failure", "timeout", true]],
    );
    const verdict = firing.decision.verdict;
    assertEquals(
      verdict.kind === "block" && verdict.reason,
      "[./hooks/crash.sh]: about to crash\n" +
        '[./hooks/hang.sh]: Hook command "./hooks/hang.sh" did not finish within 1 s',
    );
    assertEquals(firing.decision.errors, []);
  });
});

Deno.test('onFailure:"block" has no effect on an event that cannot block', async () => {
  await withProject({
    project: settings({
      Notification: [group(undefined, { ...CRASH_HOOK, onFailure: "block" })],
    }),
    scripts: { "crash.sh": CRASH },
  }, async (project) => {
    const { firing } = await fire(project, "Notification", { message: "hi" });
    assertEquals(firing.decision.verdict, { kind: "none" });
    assertEquals(firing.decision.errors.map((e) => e.cause), ["signal"]);
  });
});

Deno.test("a timed-out hook's whole process group is gone afterwards", async () => {
  await withProject({
    project: settings({ Stop: [group(undefined, command("./hooks/hang.sh", { timeout: 1 }))] }),
    scripts: { "hang.sh": HANG },
  }, async (project) => {
    const { firing } = await fire(project, "Stop", {});
    assertEquals(firing.decision.errors.map((e) => [e.cause, e.timedOut]), [["timeout", true]]);
    const pids = await readPidFile(`${project.out}/pids`);
    assertEquals(pids.length, 2);
    assertEquals(await livingPids(pids), []);
    assertEquals(await livingGroupMembers(pids[0]!), []);
  });
});

Deno.test("a timed-out hook that ignores SIGTERM is killed, with its children", async () => {
  await withProject({
    project: settings({
      Stop: [group(undefined, command("./hooks/stubborn.sh", { timeout: 1 }))],
    }),
    scripts: {
      "stubborn.sh": "trap '' TERM\nsleep 1000 &\necho \"$$ $!\" > out/pids\nwait",
    },
  }, async (project) => {
    const { firing } = await fire(project, "Stop", {}, { killGraceMs: 200 });
    assertEquals(firing.decision.errors.map((e) => e.cause), ["timeout"]);
    const pids = await readPidFile(`${project.out}/pids`);
    assertEquals(await livingPids(pids), []);
    assertEquals(await livingGroupMembers(pids[0]!), []);
  });
});

Deno.test("a hook that never reads its 2 MiB stdin does not hang, and its answer counts", async () => {
  const deny = { decision: "block", reason: "did not even look" };
  await withProject({
    project: settings({
      PreToolUse: [
        group("shell", "./hooks/blind.sh"),
        // Stays alive a moment without reading, so the writer fills the pipe and waits.
        group("shell", "sleep 0.3; echo late"),
      ],
    }),
    scripts: { "blind.sh": `printf '%s\\n' '${JSON.stringify(deny)}'` },
  }, async (project) => {
    const big = "x".repeat(2 * 1024 * 1024);
    const { firing, payload } = await fire(project, "PreToolUse", {
      tool_name: "shell",
      tool_input: { command: big },
    });
    assert(JSON.stringify(payload).length > 2 * 1024 * 1024, "the payload is over 2 MiB");
    assertEquals(firing.runs.map((run) => run.outcome.kind), ["success", "success"]);
    assertEquals(
      firing.decision.verdict.kind === "block" && firing.decision.verdict.reason,
      "did not even look",
    );
  });
});

Deno.test("a hook writing 50 MiB keeps 1 MiB, counts the rest, and does not hang", async () => {
  await withProject({
    project: settings({
      PostToolUse: [group(undefined, command(fixture("flood_stdout.sh")))],
    }),
  }, async (project) => {
    const { firing } = await notHanging(fire(project, "PostToolUse", { tool_name: "shell" }));
    const result = firing.runs[0]?.result;
    if (result?.kind !== "exited") throw new Error(`Expected an exit, got ${result?.kind}`);
    assertEquals(result.exitCode, 0);
    assertEquals(result.stdout.text.length, 1024 * 1024);
    assertEquals(result.stdout.text, "x".repeat(1024 * 1024));
    assertEquals(result.stdout.discardedBytes, 49 * 1024 * 1024);
    assertEquals(result.stderr, { text: "flood done\n", discardedBytes: 0 });
    // Plain text has no effect on PostToolUse: the flood reaches no one.
    assertEquals(firing.decision.verdict, { kind: "none" });
    assertEquals(firing.decision.texts, []);
  });
});

Deno.test("a hook that cannot start is a non-blocking error naming the command", async () => {
  await withProject({
    project: settings({
      PreToolUse: [group("shell", command("./hooks/missing", { args: ["a"] }))],
    }),
  }, async (project) => {
    const { firing } = await fire(project, "PreToolUse", { tool_name: "shell" });
    assertEquals(firing.decision.verdict, { kind: "none" });
    const error = firing.decision.errors[0];
    assertEquals(error?.cause, "spawn");
    assertStringIncludes(error?.detail ?? "", '"./hooks/missing"');
  });
});
