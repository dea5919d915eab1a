/**
 * The release smoke test: runs a built llama-agent as a user would and fails loudly if any step
 * does not work (`deno run --allow-all tools/smoke_agent.ts [--skip-hooks-test] [--timeout SECONDS]
 * EXECUTABLE`). The executable is a compiled binary (`dist/llama-agent-linux-x64`, unpacked from
 * the release archive) or the `bin/llama-agent` launcher (its test).
 *
 * Steps, each with its own time limit:
 * 1. `--version` prints `llama-agent <version>` and exits 0.
 * 2. `hooks test` passes in examples/guard-rails (unless `--skip-hooks-test`: hooks run through
 *    `/bin/sh`, which Windows lacks).
 * 3. `acp --model <generated GGUF>` in a temporary project completes one prompt over stdio:
 *    `initialize`, `session/new`, `session/prompt` answered `end_turn` with the model's exact
 *    reply; every stdout line is a JSON-RPC message. The model is a scripted GGUF from the
 *    project's writer (a few MB, written in milliseconds), run through node-llama-cpp's native
 *    addon: in a compiled binary, the part no other test reaches.
 * 4. With its stdin closed the agent exits 0, and no process it started outlives it (checked with
 *    `ps` outside Windows; any found are killed and named).
 *
 * The agent gets this process's environment: a compiled binary refuses a `$HOME` outside the
 * users' home directory, so the runner's own is the one to give it (the test passes a temporary
 * one). The temporary project is the launch directory, which both the binary and the launcher may
 * read and write, and is removed afterwards.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { writeScriptedModel } from "../src/model/scripted/scripted_gguf.ts";
import { VERSION } from "../src/version.ts";
import {
  AgentProcess,
  isObject,
  killQuietly,
  seconds,
  SmokeFailure,
} from "./smoke_agent_process.ts";

/** What the generated model answers to every prompt. */
export const SMOKE_REPLY = "The smoke test model answered.";

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const HOOKS_EXAMPLE = join(REPO_ROOT, "examples", "guard-rails");
const DEFAULT_TIMEOUT_SECONDS = 120;
const USAGE =
  "usage: deno run --allow-all tools/smoke_agent.ts [--skip-hooks-test] [--timeout SECONDS] EXECUTABLE";

interface SmokeOptions {
  readonly executable: string;
  readonly skipHooksTest: boolean;
  readonly timeoutMs: number;
}

function parseArgs(args: readonly string[]): SmokeOptions | string {
  let skipHooksTest = false;
  let timeoutMs = DEFAULT_TIMEOUT_SECONDS * 1000;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--skip-hooks-test") skipHooksTest = true;
    else if (arg === "--timeout") {
      const seconds = Number(args[++i]);
      if (!(seconds > 0)) return `"--timeout" must be a positive number of seconds`;
      timeoutMs = seconds * 1000;
    } else if (arg.startsWith("-")) return `unknown flag "${arg}"`;
    else rest.push(arg);
  }
  if (rest.length !== 1) return "expected one executable";
  return { executable: resolve(rest[0]!), skipHooksTest, timeoutMs };
}

/** Runs the steps in order, printing one line each; 0 when all pass, 1 at the first failure. */
async function smoke(options: SmokeOptions): Promise<number> {
  console.log(`smoke: ${options.executable}`);
  const steps: [string, () => Promise<string>][] = [
    ["--version", () => checkVersion(options)],
    [
      "hooks test in examples/guard-rails",
      () =>
        options.skipHooksTest ? Promise.resolve("skipped (--skip-hooks-test)") : hooksTest(options),
    ],
    ["acp: one prompt on a generated GGUF model", () => acpPrompt(options)],
  ];
  for (const [name, step] of steps) {
    const started = performance.now();
    try {
      const detail = await step();
      console.log(`ok   ${name}: ${detail} (${seconds(performance.now() - started)})`);
    } catch (error) {
      const failure = error instanceof SmokeFailure ? error : new SmokeFailure(String(error));
      console.log(`FAIL ${name}: ${failure.message} (${seconds(performance.now() - started)})`);
      if (failure.stderr.trim() !== "") {
        console.log(`the agent's stderr (last 60 lines):\n${lastLines(failure.stderr, 60)}`);
      }
      return 1;
    }
  }
  console.log("smoke: all steps passed");
  return 0;
}

async function checkVersion(options: SmokeOptions): Promise<string> {
  const run = await runToEnd(options.executable, ["--version"], REPO_ROOT, options.timeoutMs);
  const expected = `llama-agent ${VERSION}`;
  if (run.code !== 0 || run.stdout.trim() !== expected) {
    throw new SmokeFailure(
      `expected "${expected}" and exit 0, got exit ${run.code} and stdout ${
        JSON.stringify(run.stdout.trim())
      }`,
      run.stderr,
    );
  }
  return expected;
}

async function hooksTest(options: SmokeOptions): Promise<string> {
  const run = await runToEnd(
    options.executable,
    ["hooks", "test"],
    HOOKS_EXAMPLE,
    options.timeoutMs,
  );
  const summary = run.stdout.trim().split("\n").at(-1) ?? "";
  if (run.code !== 0) {
    throw new SmokeFailure(
      `exit ${run.code}; its output:\n${lastLines(run.stdout, 40)}`,
      run.stderr,
    );
  }
  return summary;
}

/** Runs a command to its end within `timeoutMs` (then kills it and fails). */
async function runToEnd(
  program: string,
  args: readonly string[],
  cwd: string,
  timeoutMs: number,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(program, {
    args: [...args],
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => killQuietly(child), timeoutMs);
  try {
    const output = await child.output();
    if (output.signal !== null) {
      throw new SmokeFailure(
        `${args.join(" ")} did not finish within ${seconds(timeoutMs)} (ended by ${output.signal})`,
        new TextDecoder().decode(output.stderr),
      );
    }
    const decoder = new TextDecoder();
    return {
      code: output.code,
      stdout: decoder.decode(output.stdout),
      stderr: decoder.decode(output.stderr),
    };
  } finally {
    clearTimeout(timer);
  }
}

async function acpPrompt(options: SmokeOptions): Promise<string> {
  const project = await Deno.realPath(await Deno.makeTempDir({ prefix: "llama_agent_smoke_" }));
  try {
    await writeScriptedModel(join(project, "smoke.gguf"), { kind: "reply", text: SMOKE_REPLY });
    const agent = new AgentProcess(
      options.executable,
      [
        "acp",
        // Relative to the launch directory, the temporary project: no path of the runner's to grant.
        "--model",
        "smoke.gguf",
        // CI machines have no GPU to rely on; the native addon is the same one either way.
        "--gpu",
        "off",
        "--ctx-size",
        "4096",
        // The scripted reply ends by itself; the cap ends any model that would not.
        "--max-answer-tokens",
        "64",
      ],
      project,
      options.timeoutMs,
    );
    try {
      await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      const created = await agent.request("session/new", { cwd: project, mcpServers: [] });
      const sessionId = isObject(created) ? created.sessionId : undefined;
      if (typeof sessionId !== "string") {
        throw new SmokeFailure(
          `session/new answered without a sessionId: ${JSON.stringify(created)}`,
        );
      }
      const result = await agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "Say something." }],
      });
      const stopReason = isObject(result) ? result.stopReason : undefined;
      const text = agent.agentText(sessionId);
      if (stopReason !== "end_turn" || text !== SMOKE_REPLY) {
        throw new SmokeFailure(
          `expected stopReason "end_turn" and the reply ${JSON.stringify(SMOKE_REPLY)}, got ${
            JSON.stringify(stopReason)
          } and ${JSON.stringify(text)}`,
        );
      }
      await agent.close();
      return `stopReason "end_turn", the model's reply streamed, exit 0, no process left behind`;
    } catch (error) {
      await agent.kill();
      const message = error instanceof SmokeFailure ? error.message : String(error);
      throw new SmokeFailure(message, agent.stderr());
    }
  } finally {
    await Deno.remove(project, { recursive: true });
  }
}

function lastLines(text: string, count: number): string {
  return text.trimEnd().split("\n").slice(-count).join("\n");
}

if (import.meta.main) {
  const options = parseArgs(Deno.args);
  if (typeof options === "string") {
    console.error(`smoke_agent: ${options}\n${USAGE}`);
    Deno.exit(2);
  }
  Deno.exit(await smoke(options));
}
