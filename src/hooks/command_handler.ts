/**
 * `command` hooks: the payload as one JSON line on stdin, the session cwd as working directory,
 * the agent's environment plus the two variables Claude Code adds. What the process did is
 * returned as it is; deciding what it means is output parsing's job.
 */
import {
  type CommandLine,
  type CommandRunner,
  MAX_TIMEOUT_MS,
  runCommand,
} from "./command_runner.ts";
import { HOOK_EVENTS, type HookEventName } from "./event_table.ts";
import { type CommandHandlerConfig, summarizeHandler } from "./handler_config.ts";
import type { HandlerResult } from "./handler_result.ts";
import type { HandlerContext, HookPayload } from "./handler_runner.ts";

export interface CommandHandlerOptions {
  readonly runCommand?: CommandRunner;
  /** The environment hooks inherit; `Deno.env.toObject()` when absent. */
  readonly baseEnv?: Readonly<Record<string, string>>;
  /** Passed to the runner; tests shorten it. */
  readonly killGraceMs?: number;
  /** End whatever the hook left running in its group once it exits (`hooks test`). */
  readonly reapGroupOnExit?: boolean;
}

/** A handler's own `timeout` (seconds), else the event's default for command and http hooks. */
export function handlerTimeoutMs(timeoutSec: number | undefined, event: HookEventName): number {
  return Math.min((timeoutSec ?? HOOK_EVENTS[event].commandTimeoutSec) * 1000, MAX_TIMEOUT_MS);
}

/** The environment of a hook process: the base, then what Claude Code sets for every hook. */
export function hookEnvironment(
  baseEnv: Readonly<Record<string, string>>,
  context: HandlerContext,
): Record<string, string> {
  return {
    ...baseEnv,
    CLAUDE_PROJECT_DIR: context.cwd,
    CLAUDE_CODE_SESSION_ID: context.sessionId,
  };
}

/**
 * The shell form is handed to `/bin/sh -c` as written. The exec form has no shell to expand
 * `$CLAUDE_PROJECT_DIR`, so that one variable is substituted here, as Claude Code substitutes
 * its path placeholders: `"command": "$CLAUDE_PROJECT_DIR/.claude/hooks/x.sh"` works in both.
 */
export function commandLineOf(handler: CommandHandlerConfig, projectDir: string): CommandLine {
  if (handler.args === undefined) return { kind: "shell", command: handler.command };
  const expand = (word: string) => word.replace(PROJECT_DIR_VARIABLE, () => projectDir);
  return { kind: "exec", command: expand(handler.command), args: handler.args.map(expand) };
}

const PROJECT_DIR_VARIABLE = /\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR(?![A-Za-z0-9_])/g;

/** Runs one command hook; a timeout, cancel or failed start is a `failed` result. */
export async function runCommandHandler(
  handler: CommandHandlerConfig,
  payload: HookPayload,
  context: HandlerContext,
  options: CommandHandlerOptions = {},
): Promise<HandlerResult> {
  const run = options.runCommand ?? runCommand;
  const timeoutMs = handlerTimeoutMs(handler.timeout, context.event);
  const result = await run({
    commandLine: commandLineOf(handler, context.cwd),
    stdin: new TextEncoder().encode(JSON.stringify(payload) + "\n"),
    cwd: context.cwd,
    env: hookEnvironment(options.baseEnv ?? Deno.env.toObject(), context),
    timeoutMs,
    ...(context.signal === undefined ? {} : { signal: context.signal }),
    ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
    ...(options.reapGroupOnExit ? { reapGroupOnExit: true } : {}),
  });
  const name = `"${summarizeHandler(handler)}"`;
  switch (result.kind) {
    case "exited":
      return result;
    case "timed_out":
      return {
        kind: "failed",
        failure: "timeout",
        message: `Hook command ${name} did not finish within ${timeoutMs / 1000} s`,
        durationMs: result.durationMs,
        stdout: result.stdout,
        stderr: result.stderr,
      };
    case "cancelled":
      return {
        kind: "failed",
        failure: "cancelled",
        message: `Hook command ${name} was cancelled`,
        durationMs: result.durationMs,
        stdout: result.stdout,
        stderr: result.stderr,
      };
    case "spawn_failed":
      return {
        kind: "failed",
        failure: "spawn",
        message: result.message,
        durationMs: result.durationMs,
      };
    default:
      return result satisfies never;
  }
}
