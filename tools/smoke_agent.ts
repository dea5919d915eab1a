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
import { writeScriptedModel } from "../src/model/scripted_gguf.ts";
import { VERSION } from "../src/version.ts";

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

/** A step that did not work: what failed, and the agent's stderr where there is one. */
class SmokeFailure extends Error {
  constructor(message: string, readonly stderr = "") {
    super(message);
  }
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

/** The agent over stdio: JSON-RPC requests with a time limit, every stdout line checked. */
class AgentProcess {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #pending = new Map<number, (message: Record<string, unknown>) => void>();
  readonly #texts = new Map<string, string>();
  readonly #stderrChunks: string[] = [];
  readonly #stdout: ReadableStreamDefaultReader<string>;
  readonly #stderr: ReadableStreamDefaultReader<string>;
  readonly #reading: Promise<void>;
  readonly #stderrReading: Promise<void>;
  readonly #status: Promise<Deno.CommandStatus>;
  #nextId = 1;
  /** Set once stdout breaks the protocol; every later request fails with it. */
  #broken: string | undefined;
  #exited = false;

  constructor(
    program: string,
    args: readonly string[],
    cwd: string,
    private readonly timeoutMs: number,
  ) {
    const child = new Deno.Command(program, {
      args: [...args],
      cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#child = child;
    this.#writer = this.#child.stdin.getWriter();
    this.#status = this.#child.status.then((status) => {
      this.#exited = true;
      this.#fail(
        `the agent exited (code ${status.code}${status.signal ? `, ${status.signal}` : ""})`,
      );
      return status;
    });
    this.#stdout = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    this.#stderr = stderr;
    this.#reading = this.#readStdout();
    this.#stderrReading = (async () => {
      for (let chunk = await stderr.read(); !chunk.done; chunk = await stderr.read()) {
        this.#stderrChunks.push(chunk.value);
      }
    })();
  }

  stderr(): string {
    return this.#stderrChunks.join("");
  }

  /** The agent_message_chunk texts of the session, joined. */
  agentText(sessionId: string): string {
    return this.#texts.get(sessionId) ?? "";
  }

  async request(method: string, params: unknown): Promise<unknown> {
    if (this.#broken !== undefined) throw new SmokeFailure(`${method}: ${this.#broken}`);
    const id = this.#nextId++;
    const answered = new Promise<Record<string, unknown>>((resolve) => {
      this.#pending.set(id, resolve);
    });
    await this.#send({ jsonrpc: "2.0", id, method, params });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.timeoutMs);
    });
    const message = await Promise.race([answered, timedOut]).finally(() => clearTimeout(timer));
    if (message === undefined) {
      throw new SmokeFailure(`${method}: no answer within ${seconds(this.timeoutMs)}`);
    }
    if ("brokenBy" in message) throw new SmokeFailure(`${method}: ${message.brokenBy}`);
    if ("error" in message) {
      throw new SmokeFailure(`${method} answered an error: ${JSON.stringify(message.error)}`);
    }
    return message.result;
  }

  /**
   * Closes stdin and waits for the agent to exit 0 by itself; then checks that no process it
   * started is still running.
   */
  async close(): Promise<void> {
    const started = this.#exited ? [] : await descendants(this.#child.pid);
    await this.#writer.close().catch(() => {});
    const status = await within(this.#status, this.timeoutMs);
    if (status === undefined) {
      throw new SmokeFailure(
        `the agent did not exit within ${seconds(this.timeoutMs)} of its stdin closing`,
      );
    }
    // Before reading stdout to its end: a process left behind may hold it open.
    const left = await stillRunning(started);
    for (const row of left) killPid(row.pid);
    await this.#drain();
    if (status.code !== 0 || status.signal !== null) {
      throw new SmokeFailure(
        `the agent exited with code ${status.code}${status.signal ? ` (${status.signal})` : ""}` +
          " after its stdin closed; expected 0",
      );
    }
    if (left.length > 0) {
      throw new SmokeFailure(
        `the agent left processes running (now killed): ${
          left.map((row) => `${row.pid} "${row.command}"`).join(", ")
        }`,
      );
    }
  }

  /** Ends the agent whatever it is doing (a failed step), and what it started. */
  async kill(): Promise<void> {
    if (!this.#exited) {
      for (const row of await descendants(this.#child.pid)) killPid(row.pid);
      killQuietly(this.#child);
    }
    await this.#writer.close().catch(() => {});
    await this.#status;
    await this.#drain().catch(() => {});
  }

  /**
   * Reads stdout and stderr to their end; a pipe still open 2 s after the agent exited (held by a
   * process it started, where that cannot be seen) is cancelled, and that is a failure.
   */
  async #drain(): Promise<void> {
    const drained = Promise.all([this.#reading, this.#stderrReading]);
    if (await within(drained.then(() => true), 2000)) return;
    await Promise.all([this.#stdout.cancel(), this.#stderr.cancel()]).catch(() => {});
    await drained.catch(() => {});
    throw new SmokeFailure(
      "the agent's stdout or stderr stayed open after it exited: a process it started holds it",
    );
  }

  async #send(message: Record<string, unknown>): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`));
  }

  async #readStdout(): Promise<void> {
    let buffer = "";
    for (let chunk = await this.#stdout.read(); !chunk.done; chunk = await this.#stdout.read()) {
      buffer += chunk.value;
      let end: number;
      while ((end = buffer.indexOf("\n")) >= 0) {
        await this.#received(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
      }
    }
    if (buffer !== "") this.#fail(`stdout ended inside a line: ${JSON.stringify(clip(buffer))}`);
  }

  async #received(line: string): Promise<void> {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      message = undefined;
    }
    if (!isObject(message) || message.jsonrpc !== "2.0") {
      this.#fail(`a stdout line is not a JSON-RPC message: ${JSON.stringify(clip(line))}`);
      return;
    }
    if (typeof message.id === "number" && !("method" in message)) {
      this.#pending.get(message.id)?.(message);
      this.#pending.delete(message.id);
    } else if ("id" in message && typeof message.method === "string") {
      // A request to the client: this one offers no capability, so it supports none.
      await this.#send({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: -32601, message: `The smoke test does not support "${message.method}"` },
      }).catch(() => {});
    } else if (message.method === "session/update" && isObject(message.params)) {
      const { sessionId, update } = message.params;
      if (
        typeof sessionId === "string" && isObject(update) &&
        update.sessionUpdate === "agent_message_chunk" && isObject(update.content) &&
        typeof update.content.text === "string"
      ) {
        this.#texts.set(sessionId, this.agentText(sessionId) + update.content.text);
      }
    }
  }

  /** Fails every request in flight, and every later one, with `reason`. */
  #fail(reason: string): void {
    this.#broken ??= reason;
    for (const answer of this.#pending.values()) answer({ brokenBy: this.#broken });
    this.#pending.clear();
  }
}

interface ProcessRow {
  readonly pid: number;
  readonly ppid: number;
  readonly command: string;
}

/** Every process, zombies left out; none on Windows (no `ps`: the check is skipped there). */
async function processTable(): Promise<ProcessRow[]> {
  if (Deno.build.os === "windows") return [];
  const { stdout } = await new Deno.Command("ps", {
    args: ["-A", "-o", "pid=,ppid=,stat=,command="],
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(stdout).split("\n").flatMap((line) => {
    const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (!match || match[3]!.startsWith("Z")) return [];
    return [{ pid: Number(match[1]), ppid: Number(match[2]), command: match[4]! }];
  });
}

/** The processes below `pid`, children first. */
async function descendants(pid: number): Promise<ProcessRow[]> {
  const table = await processTable();
  const found: ProcessRow[] = [];
  const parents = [pid];
  while (parents.length > 0) {
    const parent = parents.shift()!;
    for (const row of table.filter((r) => r.ppid === parent)) {
      found.push(row);
      parents.push(row.pid);
    }
  }
  return found;
}

/** Of `rows`, those still running the same command, after a moment to finish exiting. */
async function stillRunning(rows: readonly ProcessRow[]): Promise<ProcessRow[]> {
  if (rows.length === 0) return [];
  const deadline = performance.now() + 2000;
  let alive: ProcessRow[] = [...rows];
  while (alive.length > 0 && performance.now() < deadline) {
    const table = await processTable();
    alive = rows.filter((row) =>
      table.some((now) => now.pid === row.pid && now.command === row.command)
    );
    if (alive.length > 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return alive;
}

function killPid(pid: number): void {
  try {
    Deno.kill(pid, "SIGKILL");
  } catch {
    // Gone already.
  }
}

function killQuietly(child: Deno.ChildProcess): void {
  try {
    child.kill("SIGKILL");
  } catch {
    // Exited already.
  }
}

function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, timedOut]).finally(() => clearTimeout(timer));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}...` : text;
}

function lastLines(text: string, count: number): string {
  return text.trimEnd().split("\n").slice(-count).join("\n");
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

if (import.meta.main) {
  const options = parseArgs(Deno.args);
  if (typeof options === "string") {
    console.error(`smoke_agent: ${options}\n${USAGE}`);
    Deno.exit(2);
  }
  Deno.exit(await smoke(options));
}
