/**
 * tools/smoke_agent.ts, the release workflow's smoke test of each compiled binary, run here as the
 * workflow runs it: against the real launcher (the whole path, a generated model included), and
 * against fake agents (small shell scripts) that break one promise each, to show that each check
 * fails, says what broke, and leaves no process behind.
 */
import { SMOKE_REPLY } from "../../tools/smoke_agent.ts";
import { VERSION } from "../../src/version.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { pinnedEnv } from "../helpers/pinned_env.ts";
import { LAUNCHER, REPO_ROOT } from "../helpers/run_cli.ts";
import { livingPidsMatching } from "../hooks/process_probe.ts";

interface SmokeRun {
  readonly code: number;
  readonly stdout: string;
}

async function runSmoke(args: readonly string[]): Promise<SmokeRun> {
  const home = await Deno.makeTempDir({ prefix: "llama_agent_smoke_home_" });
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", `${REPO_ROOT}/tools/smoke_agent.ts`, ...args],
      cwd: REPO_ROOT,
      clearEnv: true,
      env: pinnedEnv(home),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    return {
      code: output.code,
      stdout: decoder.decode(output.stdout) + decoder.decode(output.stderr),
    };
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

/** The answers a correct agent gives to the smoke's three requests, as `echo` lines. */
const ANSWERS = [
  `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}`,
  `{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}`,
  JSON.stringify({
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: "s1",
      update: {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: SMOKE_REPLY },
      },
    },
  }),
  `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`,
];

/**
 * A fake agent: `--version` as the real one, and for `acp` the shell `body` (which reads requests
 * with `read -r _` and answers with `echo`).
 */
async function withFakeAgent(
  body: string,
  fn: (path: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "llama_agent_fake_" });
  try {
    const path = `${dir}/fake-agent`;
    await Deno.writeTextFile(
      path,
      `#!/bin/sh\ncase "$1" in --version) echo "llama-agent ${VERSION}"; exit 0 ;; esac\n${body}\n`,
      { mode: 0o755 },
    );
    await fn(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Answers the three requests correctly, then runs `ending`. */
function answersThen(ending: string): string {
  return [
    "read -r _",
    `echo '${ANSWERS[0]}'`,
    "read -r _",
    `echo '${ANSWERS[1]}'`,
    "read -r _",
    `echo '${ANSWERS[2]}'`,
    `echo '${ANSWERS[3]}'`,
    ending,
  ].join("\n");
}

Deno.test("the smoke passes against bin/llama-agent: --version, hooks test on the guard-rails example, and one acp prompt on a generated GGUF model", async () => {
  const run = await runSmoke([LAUNCHER]);
  assertEquals(run.code, 0, run.stdout);
  const lines = run.stdout.trim().split("\n");
  assertEquals(lines[0], `smoke: ${LAUNCHER}`);
  assertMatch(lines[1]!, new RegExp(`^ok   --version: llama-agent ${VERSION} \\(`));
  assertMatch(lines[2]!, /^ok {3}hooks test in examples\/guard-rails: \d+ passed, 0 failed/);
  assertMatch(
    lines[3]!,
    /^ok {3}acp: one prompt on a generated GGUF model: stopReason "end_turn", the model's reply streamed, exit 0, no process left behind/,
  );
  assertEquals(lines[4], "smoke: all steps passed");
});

Deno.test("a fake agent that keeps every promise passes the smoke (the fakes below differ in one thing each)", async () => {
  await withFakeAgent(answersThen("cat >/dev/null"), async (agent) => {
    const run = await runSmoke(["--skip-hooks-test", agent]);
    assertEquals(run.code, 0, run.stdout);
    assertStringIncludes(run.stdout, "ok   hooks test in examples/guard-rails: skipped");
  });
});

Deno.test("a wrong --version fails the first step with what was printed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "llama_agent_fake_" });
  try {
    await Deno.writeTextFile(`${dir}/fake-agent`, "#!/bin/sh\necho 'llama-agent 0.0.0-dev'\n", {
      mode: 0o755,
    });
    const run = await runSmoke([`${dir}/fake-agent`]);
    assertEquals(run.code, 1);
    assertStringIncludes(
      run.stdout,
      `FAIL --version: expected "llama-agent ${VERSION}" and exit 0, got exit 0 and stdout "llama-agent 0.0.0-dev"`,
    );
    assert(!run.stdout.includes("hooks test in"), "no step runs after a failure");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a stray stdout line fails the smoke, quoted, with the agent's stderr, and the agent is ended", async () => {
  const marker = `stray-${crypto.randomUUID()}`;
  await withFakeAgent(
    `echo 'Loading ${marker}'\necho 'a progress line' >&2\nexec sleep 31`,
    async (agent) => {
      const run = await runSmoke(["--skip-hooks-test", agent]);
      assertEquals(run.code, 1);
      assertStringIncludes(
        run.stdout,
        `FAIL acp: one prompt on a generated GGUF model: initialize: a stdout line is not a JSON-RPC message: "Loading ${marker}"`,
      );
      assertStringIncludes(run.stdout, "the agent's stderr (last 60 lines):\na progress line");
      assertEquals(await livingPidsMatching("sleep 31"), []);
    },
  );
});

Deno.test("an agent that never answers fails after --timeout, naming the request, and is killed", async () => {
  await withFakeAgent("exec sleep 32", async (agent) => {
    const run = await runSmoke(["--skip-hooks-test", "--timeout", "1", agent]);
    assertEquals(run.code, 1);
    assertStringIncludes(run.stdout, "initialize: no answer within 1.0 s");
    assertEquals(await livingPidsMatching("sleep 32"), []);
  });
});

Deno.test("a reply other than the model's, or a stopReason other than end_turn, fails the turn", async () => {
  const body = answersThen("cat >/dev/null").replace(
    `{"stopReason":"end_turn"}`,
    `{"stopReason":"max_tokens"}`,
  );
  await withFakeAgent(body, async (agent) => {
    const run = await runSmoke(["--skip-hooks-test", agent]);
    assertEquals(run.code, 1);
    assertStringIncludes(
      run.stdout,
      `expected stopReason "end_turn" and the reply ${
        JSON.stringify(SMOKE_REPLY)
      }, got "max_tokens" and ${JSON.stringify(SMOKE_REPLY)}`,
    );
  });
});

Deno.test("an agent that does not exit when its stdin closes fails the smoke and is killed", async () => {
  // SIGTERM ignored: only the SIGKILL that follows ends it.
  await withFakeAgent(answersThen("trap '' TERM\nexec sleep 33"), async (agent) => {
    const run = await runSmoke(["--skip-hooks-test", "--timeout", "2", agent]);
    assertEquals(run.code, 1);
    assertStringIncludes(run.stdout, "the agent did not exit within 2.0 s of its stdin closing");
    assertEquals(await livingPidsMatching("sleep 33"), []);
  });
});

Deno.test("an agent that exits non-zero after its stdin closes fails the smoke", async () => {
  await withFakeAgent(answersThen("cat >/dev/null\nexit 3"), async (agent) => {
    const run = await runSmoke(["--skip-hooks-test", agent]);
    assertEquals(run.code, 1);
    assertStringIncludes(run.stdout, "the agent exited with code 3 after its stdin closed");
  });
});

Deno.test("a process the agent leaves behind fails the smoke, is named and killed, even while it holds stdout", async () => {
  // The orphan keeps the agent's stdout open: the smoke must not wait on it forever.
  await withFakeAgent(answersThen("sleep 34 &\ncat >/dev/null"), async (agent) => {
    const run = await runSmoke(["--skip-hooks-test", agent]);
    assertEquals(run.code, 1);
    assertMatch(
      run.stdout,
      /the agent left processes running \(now killed\): \d+ "sleep 34"/,
    );
    assertEquals(await livingPidsMatching("sleep 34"), []);
  });
});
