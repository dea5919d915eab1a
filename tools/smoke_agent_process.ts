/**
 * The agent process of the release smoke test (tools/smoke_agent.ts), spoken to over stdio:
 * JSON-RPC requests with a time limit, every stdout line checked to be a JSON-RPC message, the
 * agent's text per session collected, and a close that checks the agent exits 0 by itself and
 * leaves no process it started running (with `ps`, outside Windows).
 */

/** A step that did not work: what failed, and the agent's stderr where there is one. */
export class SmokeFailure extends Error {
  constructor(message: string, readonly stderr = "") {
    super(message);
  }
}

/** The agent over stdio: JSON-RPC requests with a time limit, every stdout line checked. */
export class AgentProcess {
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

export function killQuietly(child: Deno.ChildProcess): void {
  try {
    child.kill("SIGKILL");
  } catch {
    // Exited already.
  }
}

export function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, timedOut]).finally(() => clearTimeout(timer));
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}...` : text;
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
