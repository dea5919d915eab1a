/**
 * The four handler kinds of a settings file, as zod schemas. Objects are loose: Claude Code
 * ignores fields it does not know (`async`, `statusMessage`, `once`, ...), and so do we.
 */
import { z } from "zod";

/**
 * Handler-level `if` (claude-compat.md §7): one permission rule as a string, parsed by
 * `parseIfRule` when the chain is loaded. Claude Code drops the whole file over a non-string
 * `if`; the loader skips only the handler.
 */
const ifRule = z.string({
  error: '"if" must be one rule as a string, e.g. "Bash(git *)": Claude Code would skip the ' +
    "whole file over this, llama-agent skips only this handler",
});

const timeoutSeconds = z.number({ error: '"timeout" must be a number of seconds' })
  .positive({ error: '"timeout" must be a positive number of seconds' });

export const CommandHandlerConfig = z.looseObject({
  type: z.literal("command"),
  command: z.string({ error: '"command" must be a string' })
    .min(1, { error: '"command" must not be empty' }),
  args: z.array(z.string(), { error: '"args" must be an array of strings' }).optional(),
  timeout: timeoutSeconds.optional(),
  onFailure: z.literal("block", { error: '"onFailure" must be "block"' }).optional(),
  if: ifRule.optional(),
});
export type CommandHandlerConfig = z.infer<typeof CommandHandlerConfig>;

export const HttpHandlerConfig = z.looseObject({
  type: z.literal("http"),
  url: z.string({ error: '"url" must be a string' }).refine((value) => {
    try {
      const { protocol } = new URL(value);
      return protocol === "http:" || protocol === "https:";
    } catch {
      return false;
    }
  }, { error: '"url" must be an http:// or https:// URL' }),
  headers: z.record(z.string(), z.string(), { error: '"headers" must map names to strings' })
    .optional(),
  allowedEnvVars: z.array(z.string(), { error: '"allowedEnvVars" must be an array of strings' })
    .optional(),
  timeout: timeoutSeconds.optional(),
  onFailure: z.literal("block", { error: '"onFailure" must be "block"' }).optional(),
  if: ifRule.optional(),
});
export type HttpHandlerConfig = z.infer<typeof HttpHandlerConfig>;

const evaluatedFields = {
  prompt: z.string({ error: '"prompt" must be a string' })
    .min(1, { error: '"prompt" must not be empty' }),
  model: z.string().optional(),
  timeout: timeoutSeconds.optional(),
  onFailure: z.literal("block", { error: '"onFailure" must be "block"' }).optional(),
  if: ifRule.optional(),
};

export const PromptHandlerConfig = z.looseObject({ type: z.literal("prompt"), ...evaluatedFields });
export type PromptHandlerConfig = z.infer<typeof PromptHandlerConfig>;

export const AgentHandlerConfig = z.looseObject({ type: z.literal("agent"), ...evaluatedFields });
export type AgentHandlerConfig = z.infer<typeof AgentHandlerConfig>;

export const HANDLER_TYPES = ["command", "http", "prompt", "agent"] as const;
export type HandlerType = (typeof HANDLER_TYPES)[number];

export const HandlerConfig = z.discriminatedUnion("type", [
  CommandHandlerConfig,
  HttpHandlerConfig,
  PromptHandlerConfig,
  AgentHandlerConfig,
]);
export type HandlerConfig = z.infer<typeof HandlerConfig>;

/** Default timeouts in seconds for prompt and agent handlers (command/http: see the event table). */
export const EVALUATED_TIMEOUT_SEC = { prompt: 30, agent: 60 } as const;

/**
 * What makes two handlers "the same handler" for dedup: Claude Code runs a handler listed in
 * several files once per firing. Its key is what the handler runs plus its `if` rule (`""` and
 * none alike) and, for a command, its `shell` (`"bash"` when absent): the same command under two
 * different `if` rules is two handlers, each run when its own rule holds, as in Claude Code.
 */
export function handlerIdentity(handler: HandlerConfig): string {
  const rule = handler.if ?? "";
  switch (handler.type) {
    case "command": {
      const shell = typeof handler.shell === "string" ? handler.shell : "bash";
      return JSON.stringify(["command", shell, handler.command, handler.args ?? null, rule]);
    }
    case "http":
      return JSON.stringify(["http", handler.url, rule]);
    case "prompt":
    case "agent":
      return JSON.stringify([handler.type, handler.prompt, rule]);
    default:
      return handler satisfies never;
  }
}

/**
 * What a handler runs, whole: the command with its `args`, the url or the prompt. A hook
 * reference is searched in it, and an exit 2's block quotes it.
 */
export function handlerText(handler: HandlerConfig): string {
  switch (handler.type) {
    case "command":
      return handler.args ? [handler.command, ...handler.args].join(" ") : handler.command;
    case "http":
      return handler.url;
    case "prompt":
    case "agent":
      return handler.prompt;
    default:
      return handler satisfies never;
  }
}

/** One line that says what a handler does, for listings. */
export function summarizeHandler(handler: HandlerConfig): string {
  switch (handler.type) {
    case "command":
      return handlerText(handler);
    case "http":
      return `POST ${handler.url}`;
    case "prompt":
    case "agent": {
      const oneLine = handler.prompt.replace(/\s+/g, " ").trim();
      return `${handler.type}: ${oneLine.length > 60 ? oneLine.slice(0, 57) + "..." : oneLine}`;
    }
    default:
      return handler satisfies never;
  }
}
