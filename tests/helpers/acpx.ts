/**
 * Runs the real acpx client (npm `acpx`, a pinned dev dependency) against an agent:
 * `node node_modules/acpx/dist/cli.js --agent "<command>" --cwd <dir> --format json [flags]
 * exec -- "<prompt>"`. With `--format json` acpx prints every JSON-RPC message of the connection,
 * both ways, one per stdout line, and its own failures as `{"id": null, "error": {..., "data":
 * {"acpxCode": ...}}}`.
 *
 * acpx keeps state under `$HOME/.acpx`, so every run gets a fresh temporary HOME of its own
 * (removed afterwards); the agent gets the caller's `home` through `env HOME=<home>` in front of
 * its command. acpx does not show the agent's stderr, so the command also sends it to a file
 * (`sh -c 'exec "$@" 2>>FILE'`), returned as `agentStderr`.
 *
 * acpx only logs an invalid message from the agent on stderr (`Error handling notification ...
 * -32602`) and still exits 0: `assertNoAcpxProtocolErrors` fails on that, and on what the
 * harness's own checks (schema, ordering) find in the transcript.
 *
 * Flags worth knowing (acpx 0.19.1):
 * - `--approve-all` / `--approve-reads` (the default) / `--deny-all`: how acpx answers
 *   `session/request_permission` (`allow_once` / reads only / `reject_once`); with `--deny-all`
 *   it also refuses `fs/*` and `terminal/create` (`-32603`, "Permission denied"), and without a
 *   TTY the default denies everything but reads.
 * - `--no-fs`, `--no-terminal`: advertise `fs.readTextFile/writeTextFile: false`,
 *   `terminal: false` in `initialize` (by default all three are true and acpx serves them).
 * - `--timeout <s>`, `--mcp-config <file>`, `--model <id>`, `--verbose`.
 *
 * Exit codes: 0 done, 1 error (the agent failed to start, crashed, answered an error), 2 usage,
 * 3 timeout, 4 no session, 5 a permission was requested and none was approved (a denied
 * `fs/*` or `terminal/create` counts as well), 130 interrupted.
 */
import { agentTextOf, sessionUpdatesOf, toolCallUpdatesOf } from "./acp_session_updates.ts";
import { TrafficMonitor, type Violation } from "./acp_traffic.ts";
import { AssertionError } from "./assert.ts";
import { isObject, type JsonObject } from "./json_object.ts";
import { pinnedEnv } from "./pinned_env.ts";
import { REPO_ROOT } from "./run_cli.ts";

export const ACPX_CLI = `${REPO_ROOT}/node_modules/acpx/dist/cli.js`;

export interface AcpxOptions {
  /** The agent's command line, e.g. `[LAUNCHER, "acp", "--model", path]`. */
  readonly agentCommand: readonly string[];
  /** The working directory of acpx and of the session (`--cwd`). */
  readonly cwd: string;
  readonly prompt: string;
  /** HOME for the agent (acpx gets a fresh one of its own). */
  readonly home: string;
  /** acpx options: `--approve-all`, `--deny-all`, `--no-fs`, `--no-terminal`, ... */
  readonly flags?: readonly string[];
  /** Added to the pinned environment of acpx, which the agent inherits. */
  readonly env?: Readonly<Record<string, string>>;
  /** Kill acpx after this long (default 180 s). */
  readonly timeoutMs?: number;
  /** Report properties the schema does not declare (default true). */
  readonly strictSchema?: boolean;
}

export interface AcpxMessage {
  /** `acpx` for acpx's own error lines. */
  readonly from: "client" | "agent" | "acpx";
  readonly message: JsonObject;
}

export interface AcpxRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The agent's stderr (its last MiB). */
  readonly agentStderr: string;
  /** The stdout transcript, parsed, with the side each message came from. */
  readonly messages: readonly AcpxMessage[];
  /** Stdout lines that were not JSON objects. */
  readonly unparsedLines: readonly string[];
  /** What the schema, ordering and protocol checks found in the agent's messages. */
  readonly violations: readonly Violation[];
  readonly timedOut: boolean;
}

/** Text that acpx (and the ACP SDK inside it) writes to stderr about a bad message. */
const STDERR_PROTOCOL_ERRORS = [
  "Error handling notification",
  "Error handling request",
  "Invalid message",
  "Got response to unknown request",
  "Failed to parse JSON message",
  "router stopped unexpectedly",
];

/** The `node` on PATH, or undefined (acpx needs Node 20 or later). */
export function findNode(): string | undefined {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir === "") continue;
    try {
      if (Deno.statSync(`${dir}/node`).isFile) return `${dir}/node`;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/** Quotes an argv for acpx's `--agent` (POSIX-like splitting: single quotes are literal). */
export function quoteForAcpx(argv: readonly string[]): string {
  return argv.map((arg) =>
    /^[A-Za-z0-9_\/.,:=@%+-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`
  ).join(" ");
}

/** The acpx arguments (after `node`) for these options, the agent's stderr going to a file. */
export function acpxArgs(options: AcpxOptions, agentStderrFile: string): string[] {
  return [
    ...acpxAgentArgs(options, agentStderrFile),
    ...(options.flags ?? []),
    "exec",
    "--",
    options.prompt,
  ];
}

/**
 * The acpx arguments that name the agent and the session's directory, before any command: the
 * agent runs with `home` as HOME and its stderr appended to `agentStderrFile`.
 */
export function acpxAgentArgs(
  options: Pick<AcpxOptions, "agentCommand" | "cwd" | "home">,
  agentStderrFile: string,
): string[] {
  const agent = quoteForAcpx([
    "sh",
    "-c",
    'exec "$@" 2>>"$0"',
    agentStderrFile,
    "env",
    `HOME=${options.home}`,
    ...options.agentCommand,
  ]);
  return [ACPX_CLI, "--agent", agent, "--cwd", options.cwd, "--format", "json"];
}

/** acpx (`node` and `args`) with a pinned environment whose HOME is acpx's own. */
export function acpxCommand(
  node: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly acpxHome: string; readonly env?: AcpxOptions["env"] },
): Deno.Command {
  return new Deno.Command(node, {
    args: [...args],
    cwd: options.cwd,
    clearEnv: true,
    env: pinnedEnv(options.acpxHome, options.env),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
}

/** A finished acpx run: its output decoded, and the transcript on stdout parsed and checked. */
export function acpxRunOf(
  output: Deno.CommandOutput,
  agentStderr: string,
  timedOut: boolean,
  strictSchema?: boolean,
): AcpxRun {
  const decoder = new TextDecoder();
  const stdout = decoder.decode(output.stdout);
  return {
    code: output.code,
    stdout,
    stderr: decoder.decode(output.stderr),
    agentStderr,
    timedOut,
    ...parseTranscript(stdout, strictSchema),
  };
}

export async function runAcpx(options: AcpxOptions): Promise<AcpxRun> {
  const node = findNode();
  if (node === undefined) throw new Error('runAcpx: no "node" on PATH (acpx needs Node 20+)');
  const acpxHome = await Deno.makeTempDir({ prefix: "llama-agent-acpx-home-" });
  try {
    const agentStderrFile = `${acpxHome}/agent-stderr.log`;
    const child = acpxCommand(node, acpxArgs(options, agentStderrFile), {
      cwd: options.cwd,
      acpxHome,
      env: options.env,
    }).spawn();
    let timedOut = false;
    let hardKill: ReturnType<typeof setTimeout> | undefined;
    const timeoutMs = options.timeoutMs ?? 180_000;
    const kill = (signal: Deno.Signal) => {
      try {
        child.kill(signal);
      } catch {
        // It exited meanwhile.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill("SIGTERM");
      hardKill = setTimeout(() => kill("SIGKILL"), 5_000);
    }, timeoutMs);
    const output = await child.output().finally(() => {
      clearTimeout(timer);
      clearTimeout(hardKill);
    });
    const agentStderr = await readTail(agentStderrFile, 1024 * 1024);
    return acpxRunOf(output, agentStderr, timedOut, options.strictSchema);
  } finally {
    await Deno.remove(acpxHome, { recursive: true });
  }
}

/** The last `limit` bytes of a file ("" when it does not exist). */
async function readTail(path: string, limit: number): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return "";
    throw error;
  }
  const dropped = Math.max(0, bytes.length - limit);
  const text = new TextDecoder().decode(bytes.subarray(dropped));
  return dropped > 0 ? `[${dropped} bytes dropped]\n${text}` : text;
}

/** Splits acpx's `--format json` stdout into directed messages and checks the agent's side. */
export function parseTranscript(
  stdout: string,
  strictSchema?: boolean,
): Pick<AcpxRun, "messages" | "unparsedLines" | "violations"> {
  const monitor = new TrafficMonitor({ strictSchema });
  const messages: AcpxMessage[] = [];
  const unparsedLines: string[] = [];
  for (const line of stdout.split("\n")) {
    if (line.trim() === "") continue;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      message = undefined;
    }
    if (!isObject(message)) {
      unparsedLines.push(line);
      continue;
    }
    const error = message.error;
    if (
      message.id === null && isObject(error) && isObject(error.data) && "acpxCode" in error.data
    ) {
      messages.push({ from: "acpx", message });
      continue;
    }
    messages.push({ from: monitor.observe(message), message });
  }
  return { messages, unparsedLines, violations: monitor.violations };
}

/**
 * Fails when acpx reported a bad message from the agent (only on stderr, with exit code 0), when
 * acpx answered an agent request with "invalid params"/"invalid request", printed non-JSON, or
 * when the schema/ordering checks found a problem in the agent's messages.
 */
export function assertNoAcpxProtocolErrors(run: AcpxRun): void {
  const problems: string[] = [];
  for (const text of STDERR_PROTOCOL_ERRORS) {
    const at = run.stderr.indexOf(text);
    if (at >= 0) {
      problems.push(`acpx logged "${text}": ${JSON.stringify(run.stderr.slice(at, at + 300))}`);
    }
  }
  for (const { from, message } of run.messages) {
    const error = message.error;
    if (from === "client" && isObject(error) && (error.code === -32602 || error.code === -32600)) {
      problems.push(`acpx refused a request from the agent: ${JSON.stringify(message)}`);
    }
  }
  for (const line of run.unparsedLines) {
    problems.push(`acpx printed a line that is not JSON: ${JSON.stringify(line.slice(0, 200))}`);
  }
  for (const violation of run.violations) problems.push(`[${violation.kind}] ${violation.message}`);
  if (problems.length === 0) return;
  throw new AssertionError(
    `acpx saw ${problems.length} protocol problem(s) (exit code ${run.code}):\n  ` +
      problems.join("\n  ") +
      `\nacpx stderr (end):\n${tail(run.stderr)}\nagent stderr (end):\n${tail(run.agentStderr)}`,
  );
}

function tail(text: string, lines = 40): string {
  return text.split("\n").slice(-lines).join("\n") || "(empty)";
}

/** A run's exit code, stdout and both stderrs, for assertion messages. */
export function describeAcpxRun(run: AcpxRun): string {
  return `exit code ${run.code}${run.timedOut ? " (timed out)" : ""}\nstdout:\n${run.stdout}` +
    `\nacpx stderr:\n${tail(run.stderr)}\nagent stderr:\n${tail(run.agentStderr)}`;
}

/** The agent's notifications, in order. */
export function acpxNotifications(run: AcpxRun): JsonObject[] {
  return run.messages
    .filter(({ from, message }) =>
      from === "agent" && typeof message.method === "string" &&
      !("id" in message)
    )
    .map(({ message }) => message);
}

/** The agent's `session/update` objects, in order. */
export function acpxSessionUpdates(run: AcpxRun, sessionId?: string): JsonObject[] {
  return sessionUpdatesOf(acpxNotifications(run), sessionId);
}

/** The agent's message text (its `agent_message_chunk`s), concatenated. */
export function acpxAgentText(run: AcpxRun, sessionId?: string): string {
  return agentTextOf(acpxNotifications(run), sessionId);
}

/** The `tool_call` and `tool_call_update` updates, in order. */
export function acpxToolCallUpdates(run: AcpxRun, sessionId?: string): JsonObject[] {
  return toolCallUpdatesOf(acpxNotifications(run), sessionId);
}

/** The agent's requests to acpx (all, or of one method), in order. */
export function acpxAgentRequests(run: AcpxRun, method?: string): JsonObject[] {
  return run.messages
    .filter(({ from, message }) =>
      from === "agent" && "id" in message && typeof message.method === "string" &&
      (method === undefined || message.method === method)
    )
    .map(({ message }) => message);
}

/** The `stopReason` of the last `session/prompt` answer, or undefined without one. */
export function acpxStopReason(run: AcpxRun): string | undefined {
  let promptId: unknown;
  let stopReason: string | undefined;
  for (const { from, message } of run.messages) {
    if (from === "client" && message.method === "session/prompt") promptId = message.id;
    if (from === "agent" && !("method" in message) && message.id === promptId) {
      const result = message.result;
      if (isObject(result) && typeof result.stopReason === "string") stopReason = result.stopReason;
    }
  }
  return stopReason;
}
