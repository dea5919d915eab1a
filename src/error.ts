/**
 * The one local error type: a stable code the program can branch on, and a message that tells
 * the user what to do. Errors sent to an ACP client are the SDK's `RequestError`, never this.
 */

export type AgentErrorCode =
  | "USAGE"
  | "PATH_NOT_ALLOWED"
  | "INPUT_INVALID"
  | "HOOK_TIMEOUT"
  | "HOOK_SPAWN"
  | "SETTINGS_INVALID"
  | "MODEL_UNAVAILABLE"
  | "MODEL_LOAD"
  | "MODEL_SERVER"
  | "MODEL_SCRIPT_EXHAUSTED"
  | "CONTEXT_FULL"
  | "INTERNAL";

export class AgentError extends Error {
  override readonly name = "AgentError";
  constructor(readonly code: AgentErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** The message of any thrown value, for places that must report and go on. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
