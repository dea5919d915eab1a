/**
 * What the `acp` command decides once for the whole process and every session shares.
 */
import type { PermissionModeId } from "../agent/permission_policy.ts";
import type { PermissionRule } from "../agent/permission_rules.ts";
import type { ModelProvider } from "./model_provider.ts";

export interface AgentConfig {
  readonly models: ModelProvider;
  /** The directory the agent was started in: an allowed root. */
  readonly launchCwd: string;
  /** `$HOME`: an allowed root, and where transcripts live. */
  readonly home: string | undefined;
  readonly env: (name: string) => string | undefined;
  readonly defaultMode: PermissionModeId;
  readonly rules: readonly PermissionRule[];
  readonly maxToolRounds: number;
  readonly version: string;
  /** Everything the agent has to say goes to stderr through this. */
  readonly log: (line: string) => void;
}

export const DEFAULT_MAX_TOOL_ROUNDS = 32;
