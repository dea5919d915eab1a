/**
 * `command` hooks: the payload as one JSON line on stdin, the session cwd as working directory,
 * the agent's environment plus the variables Claude Code adds (two for every hook, two more for
 * a plugin's). What the process did is returned as it is; deciding what it means is output
 * parsing's job.
 */
import { errorMessage } from "../../error.ts";
import {
  type CommandLine,
  type CommandRunner,
  MAX_TIMEOUT_MS,
  runCommand,
} from "../../os/process/command_runner.ts";
import { HOOK_EVENTS, type HookEventName } from "../event_table.ts";
import { type CommandHandlerConfig, summarizeHandler } from "../handler_config.ts";
import type { HandlerResult } from "../handler_result.ts";
import type { HandlerContext, HookPayload } from "../handler_runner.ts";
import type { PluginLocation } from "../plugins/plugin_location.ts";

export interface CommandHandlerOptions {
  readonly runCommand?: CommandRunner;
  /** The environment hooks inherit; `Deno.env.toObject()` when absent. */
  readonly baseEnv?: Readonly<Record<string, string>>;
  /** Passed to the runner; tests shorten it. */
  readonly killGraceMs?: number;
  /** End whatever the hook left running in its group once it exits (`hooks test`). */
  readonly reapGroupOnExit?: boolean;
  /**
   * Creates a plugin's `CLAUDE_PLUGIN_DATA` before its hook spawns; default: `mkdir -p` each
   * time. `createHandlerRunner` passes one that remembers the directories it made.
   */
  readonly preparePluginData?: PreparePluginData;
}

/** Makes sure a plugin's data directory exists; rejects when it cannot be created. */
export type PreparePluginData = (dataDir: string) => Promise<void>;

const makeDataDir: PreparePluginData = (dataDir) =>
  Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });

/** A `PreparePluginData` that creates each directory once per runner (a failure is retried). */
export function cachedPluginDataDirs(make: PreparePluginData = makeDataDir): PreparePluginData {
  const made = new Map<string, Promise<void>>();
  return (dataDir) => {
    let making = made.get(dataDir);
    if (making === undefined) {
      making = make(dataDir);
      made.set(dataDir, making);
      making.catch(() => made.delete(dataDir));
    }
    return making;
  };
}

/** A handler's own `timeout` (seconds), else the event's default for command and http hooks. */
export function handlerTimeoutMs(timeoutSec: number | undefined, event: HookEventName): number {
  return Math.min((timeoutSec ?? HOOK_EVENTS[event].commandTimeoutSec) * 1000, MAX_TIMEOUT_MS);
}

/**
 * The environment of a hook process: the base, then what the firing gives this hook
 * (SessionStart's `CLAUDE_ENV_FILE`), then what Claude Code sets for every hook, then for a
 * plugin's hook its root and data directory. A settings hook gets neither plugin variable, and a
 * hook of another event no `CLAUDE_ENV_FILE`, even when the agent itself inherited one, as in
 * Claude Code.
 */
export function hookEnvironment(
  baseEnv: Readonly<Record<string, string>>,
  context: HandlerContext,
  plugin?: PluginLocation,
): Record<string, string> {
  const {
    CLAUDE_PLUGIN_ROOT: _root,
    CLAUDE_PLUGIN_DATA: _data,
    CLAUDE_ENV_FILE: _envFile,
    ...inherited
  } = baseEnv;
  return {
    ...inherited,
    ...context.extraEnv,
    CLAUDE_PROJECT_DIR: context.cwd,
    CLAUDE_CODE_SESSION_ID: context.sessionId,
    ...(plugin === undefined
      ? {}
      : { CLAUDE_PLUGIN_ROOT: plugin.root, CLAUDE_PLUGIN_DATA: plugin.dataDir }),
  };
}

/**
 * The shell form is handed to `/bin/sh -c` as written: the shell expands `$CLAUDE_PROJECT_DIR`
 * and, in a plugin's hook, `${CLAUDE_PLUGIN_ROOT}` from the environment, as in Claude Code
 * (a single-quoted one stays literal). The exec form has no shell, so those variables are
 * substituted here, as Claude Code substitutes its path placeholders:
 * `"command": "$CLAUDE_PROJECT_DIR/.claude/hooks/x.sh"` works in both.
 */
function commandLineOf(
  handler: CommandHandlerConfig,
  projectDir: string,
  plugin?: PluginLocation,
): CommandLine {
  if (handler.args === undefined) return { kind: "shell", command: handler.command };
  const values: Readonly<Record<string, string>> = plugin === undefined
    ? { CLAUDE_PROJECT_DIR: projectDir }
    : {
      CLAUDE_PROJECT_DIR: projectDir,
      CLAUDE_PLUGIN_ROOT: plugin.root,
      CLAUDE_PLUGIN_DATA: plugin.dataDir,
    };
  // One pass, so a substituted path that itself contains `$CLAUDE_...` is left as it is.
  const expand = (word: string) =>
    word.replace(PATH_VARIABLE, (written, braced, bare) => values[braced ?? bare] ?? written);
  return { kind: "exec", command: expand(handler.command), args: handler.args.map(expand) };
}

const PATH_NAMES = "CLAUDE_PROJECT_DIR|CLAUDE_PLUGIN_ROOT|CLAUDE_PLUGIN_DATA";
const PATH_VARIABLE = new RegExp(
  `\\$\\{(${PATH_NAMES})\\}|\\$(${PATH_NAMES})(?![A-Za-z0-9_])`,
  "g",
);

/**
 * Runs one command hook (of `plugin`, when it is a plugin's); a timeout, cancel, failed start
 * or a plugin data directory that cannot be created is a `failed` result.
 */
export async function runCommandHandler(
  handler: CommandHandlerConfig,
  payload: HookPayload,
  context: HandlerContext,
  options: CommandHandlerOptions = {},
  pluginAsLoaded?: PluginLocation,
): Promise<HandlerResult> {
  const run = options.runCommand ?? runCommand;
  const timeoutMs = handlerTimeoutMs(handler.timeout, context.event);
  const plugin = pluginAsLoaded === undefined ? undefined : placedIn(pluginAsLoaded, context.cwd);
  if (plugin !== undefined) {
    const started = performance.now();
    try {
      await (options.preparePluginData ?? makeDataDir)(plugin.dataDir);
    } catch (error) {
      return {
        kind: "failed",
        failure: "spawn",
        message: `Hook command "${summarizeHandler(handler)}" of plugin "${plugin.id}" did not ` +
          `start: cannot create its data directory "${plugin.dataDir}": ${errorMessage(error)}`,
        durationMs: Math.round(performance.now() - started),
      };
    }
  }
  const result = await run({
    commandLine: commandLineOf(handler, context.cwd, plugin),
    stdin: new TextEncoder().encode(JSON.stringify(payload) + "\n"),
    cwd: context.workingDir ?? context.cwd,
    env: hookEnvironment(options.baseEnv ?? Deno.env.toObject(), context, plugin),
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

/**
 * The plugin with a relative data directory (no HOME) placed under the hook's working
 * directory, so the directory made here is the one the hook finds through `CLAUDE_PLUGIN_DATA`
 * (a relative path would be made under the agent's own cwd, and read under the session's).
 */
function placedIn(plugin: PluginLocation, cwd: string): PluginLocation {
  if (plugin.dataDir.startsWith("/")) return plugin;
  const relative = plugin.dataDir.replace(/^(\.\/)+/, "");
  return { ...plugin, dataDir: `${cwd.replace(/\/+$/, "")}/${relative}` };
}
