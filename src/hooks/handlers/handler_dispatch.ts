/**
 * The real `HandlerRunner`: picks the runner for a handler's type. Everything that reaches the
 * outside world (processes, network, a model, the environment) is passed in, so tests and
 * `hooks test` can swap any of it.
 */
import { cachedPluginDataDirs, runCommandHandler } from "./command_handler.ts";
import type { CommandRunner } from "../../os/process/command_runner.ts";
import { type Evaluator, runEvaluatedHandler } from "./evaluator.ts";
import type { HandlerRunner } from "../handler_runner.ts";
import { runHttpHandler } from "./http_handler.ts";

export interface HandlerRunnerOptions {
  readonly runCommand?: CommandRunner;
  readonly fetch?: typeof fetch;
  /** Without one, prompt and agent hooks fail with `no_evaluator`. */
  readonly evaluator?: Evaluator;
  /** The environment hooks inherit; `Deno.env.toObject()` at each run when absent. */
  readonly baseEnv?: Readonly<Record<string, string>>;
  /** SIGTERM-to-SIGKILL grace for command hooks; tests shorten it. */
  readonly killGraceMs?: number;
  /**
   * End whatever a command hook leaves running in its group once it exits. Off in sessions: a
   * hook may start slow work in the background on purpose (Claude Code documents the pattern);
   * on in `hooks test`, where every process of a case must be gone when it ends.
   */
  readonly reapGroupOnExit?: boolean;
}

export function createHandlerRunner(options: HandlerRunnerOptions = {}): HandlerRunner {
  // A plugin's data directory is made before its first hook, once for the runner's life.
  const commandOptions = { ...options, preparePluginData: cachedPluginDataDirs() };
  return (registration, payload, context) => {
    const { handler } = registration;
    switch (handler.type) {
      case "command":
        return runCommandHandler(
          handler,
          payload,
          context,
          commandOptions,
          registration.source.plugin,
        );
      case "http":
        return runHttpHandler(handler, payload, context, options);
      case "prompt":
      case "agent":
        return runEvaluatedHandler(handler, payload, context, options.evaluator);
      default:
        return handler satisfies never;
    }
  };
}
