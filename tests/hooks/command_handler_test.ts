import { runCommandHandler } from "../../src/hooks/handlers/command_handler.ts";
import type { CommandRunOptions, CommandRunResult } from "../../src/os/process/command_runner.ts";
import type { CommandHandlerConfig } from "../../src/hooks/handler_config.ts";
import type { HandlerResult } from "../../src/hooks/handler_result.ts";
import type { HandlerContext } from "../../src/hooks/handler_runner.ts";
import { assert, assertEquals, assertLess, assertMatch } from "../helpers/assert.ts";
import { fixture, livingPids, readPidFile } from "./process_probe.ts";
import { exited } from "./registration_fixture.ts";

const payload = {
  session_id: "sess-1",
  transcript_path: "/tmp/raw.jsonl",
  cwd: "/project",
  hook_event_name: "PreToolUse",
  tool_name: "shell",
  tool_input: { command: "echo $HOME && rm -rf /" },
  tool_use_id: "call-1",
};

const baseEnv = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", BASE_ONLY: "from-base" };

function command(command: string, extra: Partial<CommandHandlerConfig> = {}): CommandHandlerConfig {
  return { type: "command", command, ...extra };
}

function context(extra: Partial<HandlerContext> = {}): HandlerContext {
  return { event: "PreToolUse", cwd: Deno.cwd(), sessionId: "sess-1", ...extra };
}

function assertExited(result: HandlerResult) {
  if (result.kind !== "exited") throw new Error(`Expected "exited", got ${JSON.stringify(result)}`);
  return result;
}

function assertFailed(result: HandlerResult) {
  if (result.kind !== "failed") throw new Error(`Expected "failed", got ${JSON.stringify(result)}`);
  return result;
}

/** A runner that records what it was asked to run and answers with an exit 0. */
function recordingRunner() {
  const calls: CommandRunOptions[] = [];
  const runCommand = (options: CommandRunOptions): Promise<CommandRunResult> => {
    calls.push(options);
    return Promise.resolve(exited(0));
  };
  return { calls, runCommand };
}

async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "command_handler_test_" });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("stdin is exactly the payload as one JSON line, then end of file", async () => {
  const result = assertExited(
    // `cat` ends only at end of file: without it this would time out instead.
    await runCommandHandler(command(fixture("echo_stdin.sh"), { timeout: 5 }), payload, context(), {
      baseEnv,
    }),
  );
  assertEquals(result.stdout.text, JSON.stringify(payload) + "\n");
  assertEquals(result.stdout.text.split("\n").length, 2);
});

Deno.test("the hook runs in the session cwd with CLAUDE_PROJECT_DIR and CLAUDE_CODE_SESSION_ID", async () => {
  await withTempDir(async (dir) => {
    const result = assertExited(
      await runCommandHandler(
        command(fixture("print_env.sh")),
        payload,
        context({ cwd: dir, sessionId: "sess-42" }),
        { baseEnv: { ...baseEnv, CLAUDE_PROJECT_DIR: "/stale" } },
      ),
    );
    const lines = result.stdout.text.split("\n");
    assertEquals(lines[0], `cwd=${await Deno.realPath(dir)}`);
    assert(lines.includes(`CLAUDE_PROJECT_DIR=${dir}`), result.stdout.text);
    assert(lines.includes("CLAUDE_CODE_SESSION_ID=sess-42"), result.stdout.text);
    assert(lines.includes("BASE_ONLY=from-base"), result.stdout.text);
  });
});

Deno.test("the environment is the injected base, not the agent's own", async () => {
  const result = assertExited(
    await runCommandHandler(command(fixture("print_env.sh")), payload, context(), {
      baseEnv: { ONLY: "this" },
    }),
  );
  assert(!result.stdout.text.includes("\nPATH="), result.stdout.text);
  assert(result.stdout.text.includes("\nONLY=this\n"), result.stdout.text);
});

Deno.test("a command without args runs under /bin/sh; with args it is spawned directly", async () => {
  const { calls, runCommand } = recordingRunner();
  await runCommandHandler(command("echo $HOME | tee x"), payload, context(), {
    runCommand,
    baseEnv,
  });
  await runCommandHandler(command("/usr/bin/hook", { args: ["$HOME"] }), payload, context(), {
    runCommand,
    baseEnv,
  });
  await runCommandHandler(command("/usr/bin/hook", { args: [] }), payload, context(), {
    runCommand,
    baseEnv,
  });
  assertEquals(calls.map((call) => call.commandLine), [
    { kind: "shell", command: "echo $HOME | tee x" },
    { kind: "exec", command: "/usr/bin/hook", args: ["$HOME"] },
    { kind: "exec", command: "/usr/bin/hook", args: [] },
  ]);
});

Deno.test("the timeout is the handler's own, else the event's default", async () => {
  const { calls, runCommand } = recordingRunner();
  const options = { runCommand, baseEnv };
  await runCommandHandler(command("true"), payload, context({ event: "PreToolUse" }), options);
  await runCommandHandler(
    command("true"),
    payload,
    context({ event: "UserPromptSubmit" }),
    options,
  );
  await runCommandHandler(command("true", { timeout: 2.5 }), payload, context(), options);
  assertEquals(calls.map((call) => call.timeoutMs), [600_000, 30_000, 2_500]);
});

Deno.test("a timeout too long for a timer is clamped, so it does not fire at once", async () => {
  const { calls, runCommand } = recordingRunner();
  await runCommandHandler(command("true", { timeout: 1e7 }), payload, context(), {
    runCommand,
    baseEnv,
  });
  assertEquals(calls[0]?.timeoutMs, 2 ** 31 - 1);
});

Deno.test("exit 2 is reported with its stderr, and stdout kept as it is", async () => {
  const result = assertExited(
    await runCommandHandler(command(fixture("exit_2_with_stderr.sh")), payload, context(), {
      baseEnv,
    }),
  );
  assertEquals(result.exitCode, 2);
  assertEquals(result.stderr.text, "blocked by exit_2_with_stderr\n");
  assertEquals(result.stdout.text, '{"decision":"approve"}\n');
});

Deno.test("stdout is returned uninterpreted: JSON and garbage alike", async () => {
  const deny = assertExited(
    await runCommandHandler(command(fixture("deny_json.sh")), payload, context(), { baseEnv }),
  );
  assertEquals(JSON.parse(deny.stdout.text).hookSpecificOutput.permissionDecision, "deny");
  const garbage = assertExited(
    await runCommandHandler(command(fixture("print_garbage.sh")), payload, context(), { baseEnv }),
  );
  assertEquals(garbage.stdout.text, 'this is not json {"decision":');
});

Deno.test("a crash is an exit with a signal, not a failure", async () => {
  const result = assertExited(
    await runCommandHandler(command(fixture("crash.sh"), { args: [] }), payload, context(), {
      baseEnv,
    }),
  );
  assertEquals(result.signal, "SIGSEGV");
});

Deno.test("a missing binary is a spawn failure", async () => {
  const result = assertFailed(
    await runCommandHandler(command("/nonexistent/hook", { args: [] }), payload, context(), {
      baseEnv,
    }),
  );
  assertEquals(result.failure, "spawn");
  assertMatch(result.message, /^Cannot start "\/nonexistent\/hook": /);
});

Deno.test("a missing session cwd is a spawn failure", async () => {
  const result = assertFailed(
    await runCommandHandler(command("true"), payload, context({ cwd: "/nonexistent/cwd" }), {
      baseEnv,
    }),
  );
  assertEquals(result.failure, "spawn");
});

Deno.test("a timed-out hook fails with what it wrote, and its process group is gone", async () => {
  await withTempDir(async (dir) => {
    const pidFile = `${dir}/pids`;
    const run = runCommandHandler(
      command(`echo started; ${fixture("write_pid_tree.sh")} ${pidFile}`, { timeout: 0.4 }),
      payload,
      context(),
      { baseEnv, killGraceMs: 200 },
    );
    const pids = await readPidFile(pidFile);
    const result = assertFailed(await run);
    assertEquals(result.failure, "timeout");
    assertEquals(
      result.message,
      `Hook command "echo started; ${
        fixture("write_pid_tree.sh")
      } ${pidFile}" did not finish within 0.4 s`,
    );
    assertEquals(result.stdout?.text, "started\n");
    assertEquals(await livingPids(pids), []);
  });
});

Deno.test("aborting the context signal cancels the hook quickly", async () => {
  await withTempDir(async (dir) => {
    const pidFile = `${dir}/pids`;
    const controller = new AbortController();
    const run = runCommandHandler(
      command(fixture("write_pid_tree.sh"), { args: [pidFile] }),
      payload,
      context({ signal: controller.signal }),
      { baseEnv, killGraceMs: 200 },
    );
    const pids = await readPidFile(pidFile);
    const abortedAt = performance.now();
    controller.abort();
    const result = assertFailed(await run);
    assertLess(performance.now() - abortedAt, 1000, "ms from abort to result");
    assertEquals(result.failure, "cancelled");
    assertEquals(await livingPids(pids), []);
  });
});

Deno.test("the exec form expands $CLAUDE_PROJECT_DIR itself, having no shell to do it", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/hook.sh`, '#!/bin/sh\necho "ran with $1 $2"\n');
    await Deno.chmod(`${dir}/hook.sh`, 0o755);
    const result = assertExited(
      await runCommandHandler(
        command("$CLAUDE_PROJECT_DIR/hook.sh", {
          args: ["${CLAUDE_PROJECT_DIR}/data", "$CLAUDE_PROJECT_DIRECTORY"],
        }),
        payload,
        context({ cwd: dir }),
        { baseEnv },
      ),
    );
    assertEquals(result.exitCode, 0, result.stderr.text);
    assertEquals(result.stdout.text, `ran with ${dir}/data $CLAUDE_PROJECT_DIRECTORY\n`);
  });
});
