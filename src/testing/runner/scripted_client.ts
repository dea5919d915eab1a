/**
 * The ACP client of a session case: it records every `session/update`, answers permission
 * requests as the case says, and serves `fs/*` (from disk) and `terminal/*` (each command answered
 * by the case's scripted shell, or, with `execute`, run here in the case's hermetic environment)
 * only when the case advertises them.
 *
 * Choices:
 * - Without `permissions`, every request is answered `allow_once`.
 * - `fs/*` go through the file access it is given (the case's place, confined to it as the
 *   agent's local file tools are). The agent checks a path by name before it asks; a client
 *   that opened by name would reopen the race the agent's own tools close, so this one opens
 *   and verifies like them: only regular files, up to the agent's read limit, missing parents
 *   created.
 * - A terminal's output is its stdout then its stderr (not interleaved), the start kept when it
 *   passes `outputByteLimit`. `close()` kills every terminal still running and waits for it.
 */
import * as acp from "@agentclientprotocol/sdk";
import type {
  ClientCapabilities,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
} from "@agentclientprotocol/sdk";
import type { z } from "zod";
import type { FileAccess } from "../../agent/files/file_access.ts";
import { commandOfScript } from "../../agent/shell/shell_script.ts";
import {
  type CommandRunResult,
  MAX_TIMEOUT_MS,
  runCommand,
} from "../../os/process/command_runner.ts";
import type { ScriptedClient } from "../scenarios/scenario_schema.ts";
import type { ScriptedShell } from "./scripted_shell.ts";

type ClientSpec = z.infer<typeof ScriptedClient>;
type PermissionAnswer = Exclude<ClientSpec["permissions"], readonly unknown[] | undefined>;

export interface ScriptedClientOptions {
  readonly spec: ClientSpec | undefined;
  /** The environment terminal commands run with. */
  readonly env: Readonly<Record<string, string>>;
  /** Where a terminal runs when the request names no cwd. */
  readonly cwd: string;
  /**
   * Serves `fs/*`: the case's own confined file access, so a path the agent let through is
   * opened exactly as the agent's local file tools open one (verified, never raced out of the
   * case's place).
   */
  readonly files: FileAccess;
  /** Answers terminal commands, or records the ones it lets run. */
  readonly shell: ScriptedShell;
  readonly killGraceMs?: number;
}

export interface ScriptedClientHandle {
  readonly app: acp.ClientApp;
  /** What `initialize` advertises. */
  readonly capabilities: ClientCapabilities;
  /** Every `session/update`, in the order received. */
  readonly updates: readonly SessionNotification[];
  readonly permissionRequests: readonly RequestPermissionRequest[];
  /** Kills the terminals still running and waits until they are gone. */
  close(): Promise<void>;
}

interface Terminal {
  readonly controller: AbortController;
  readonly done: Promise<CommandRunResult>;
  result?: CommandRunResult;
  readonly limit: number | undefined;
}

export function scriptedClient(options: ScriptedClientOptions): ScriptedClientHandle {
  const spec = options.spec ?? {};
  const updates: SessionNotification[] = [];
  const permissionRequests: RequestPermissionRequest[] = [];
  const answers = spec.permissions === undefined
    ? []
    : typeof spec.permissions === "string"
    ? [spec.permissions]
    : spec.permissions;
  const answer = (): PermissionAnswer => {
    const index = Math.min(permissionRequests.length - 1, answers.length - 1);
    return answers[index] ?? "allow_once";
  };

  let app = acp.client({ name: "llama-agent hooks test" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params);
    })
    .onRequest("session/request_permission", ({ params }): RequestPermissionResponse => {
      permissionRequests.push(params);
      const chosen = answer();
      return chosen === "cancelled"
        ? { outcome: { outcome: "cancelled" } }
        : { outcome: { outcome: "selected", optionId: chosen } };
    });

  if (spec.fs === true) {
    app = app
      .onRequest("fs/read_text_file", async ({ params }) => {
        const read = await options.files.readTextFile(params.path, {
          ...(params.line == null ? {} : { line: params.line }),
          ...(params.limit == null ? {} : { limit: params.limit }),
        });
        if (read.ok) return { content: read.content };
        if (read.failure === "not_found") throw acp.RequestError.resourceNotFound(params.path);
        throw acp.RequestError.internalError(undefined, read.message);
      })
      .onRequest("fs/write_text_file", async ({ params }) => {
        const written = await options.files.writeTextFile(params.path, params.content);
        if (!written.ok) throw acp.RequestError.internalError(undefined, written.message);
        return {};
      });
  }

  const terminals = new Map<string, Terminal>();
  if (spec.terminal === true) {
    let count = 0;
    const find = (id: string): Terminal => {
      const terminal = terminals.get(id);
      if (!terminal) throw acp.RequestError.resourceNotFound(id);
      return terminal;
    };
    app = app
      .onRequest("terminal/create", ({ params }) => {
        const terminalId = `term_${++count}`;
        const controller = new AbortController();
        const env = { ...options.env };
        for (const variable of params.env ?? []) env[variable.name] = variable.value;
        const limit = params.outputByteLimit ?? undefined;
        const args = params.args ?? [];
        const done = options.shell.run<CommandRunResult>(shownCommand(params.command, args), {
          execute: () =>
            runCommand({
              commandLine: { kind: "exec", command: params.command, args },
              cwd: params.cwd ?? options.cwd,
              env,
              timeoutMs: MAX_TIMEOUT_MS,
              signal: controller.signal,
              ...(limit === undefined ? {} : { stdoutCapBytes: limit, stderrCapBytes: limit }),
              ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
            }),
          answered: ({ output, exitCode }) => ({
            kind: "exited",
            exitCode,
            signal: null,
            stdout: { text: output, discardedBytes: 0 },
            stderr: { text: "", discardedBytes: 0 },
            durationMs: 0,
          }),
        });
        const terminal: Terminal = { controller, done, limit };
        done.then((result) => (terminal.result = result));
        terminals.set(terminalId, terminal);
        return { terminalId };
      })
      .onRequest("terminal/wait_for_exit", async ({ params }) => {
        return exitStatus(await find(params.terminalId).done);
      })
      .onRequest("terminal/output", ({ params }) => {
        const terminal = find(params.terminalId);
        if (terminal.result === undefined) return { output: "", truncated: false };
        return terminalOutput(terminal.result, terminal.limit);
      })
      .onRequest("terminal/kill", async ({ params }) => {
        const terminal = find(params.terminalId);
        terminal.controller.abort();
        await terminal.done;
        return {};
      })
      .onRequest("terminal/release", async ({ params }) => {
        const terminal = find(params.terminalId);
        terminal.controller.abort();
        await terminal.done;
        terminals.delete(params.terminalId);
        return {};
      });
  }

  return {
    app,
    capabilities: {
      fs: { readTextFile: spec.fs === true, writeTextFile: spec.fs === true },
      terminal: spec.terminal === true,
      // A scenario may set the session's "stop hooks continue" option, a boolean one. Notices
      // are not advertised: the case reads them as the marked agent text of clients without.
      session: { configOptions: { boolean: {} } },
    },
    updates,
    permissionRequests,
    async close() {
      const running = [...terminals.values()];
      terminals.clear();
      for (const terminal of running) terminal.controller.abort();
      await Promise.all(running.map((terminal) => terminal.done));
    },
  };
}

/**
 * A terminal command as the shell tool gave it: `<command>` of `<shell> -c <command>`, the script
 * that follows the shell's directory taken off (shell_script.ts).
 */
function shownCommand(command: string, args: readonly string[]): string {
  if (SHELLS.test(command) && args.length === 2 && args[0] === "-c") {
    return commandOfScript(args[1]!);
  }
  return [command, ...args].join(" ");
}

/** What the shell tool runs a command with: `/bin/sh`, or a bash (shell_program.ts). */
const SHELLS = /^(?:\/bin\/sh|\/.*\/bash)$/;

function exitStatus(result: CommandRunResult): { exitCode: number | null; signal: string | null } {
  switch (result.kind) {
    case "exited":
      return { exitCode: result.exitCode, signal: result.signal };
    case "timed_out":
    case "cancelled":
      return { exitCode: null, signal: "SIGTERM" };
    case "spawn_failed":
      return { exitCode: 127, signal: null };
    default:
      return result satisfies never;
  }
}

function terminalOutput(result: CommandRunResult, limit: number | undefined) {
  const text = result.kind === "spawn_failed"
    ? result.message
    : result.stdout.text + result.stderr.text;
  const discarded = result.kind === "spawn_failed"
    ? 0
    : result.stdout.discardedBytes + result.stderr.discardedBytes;
  const bytes = new TextEncoder().encode(text);
  const truncated = discarded > 0 || (limit !== undefined && bytes.length > limit);
  const output = limit !== undefined && bytes.length > limit
    ? new TextDecoder().decode(bytes.slice(0, limit))
    : text;
  return { output, truncated, exitStatus: exitStatus(result) };
}
