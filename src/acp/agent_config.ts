/**
 * What the `acp` command decides once for the whole process and every session shares.
 */
import type { PermissionModeId } from "../agent/permissions/permission_policy.ts";
import type { PermissionRule } from "../agent/permissions/permission_rules.ts";
import type { ShellRunner } from "../agent/shell/shell_runner.ts";
import type { HandlerRunner } from "../hooks/handler_runner.ts";
import type { ProfileSetting } from "../profile/compat_profile.ts";
import type { ContextBudgetSettings } from "./compaction/context_budget.ts";
import type { ModelCatalog } from "./model_catalog.ts";
import type { ModelProvider } from "./model_provider.ts";
import type { FiringObserver } from "./session/session_hook_firer.ts";
import type { NotificationDelays } from "./session/notification_hooks.ts";

export interface AgentConfig {
  /** The model the agent was started with: the sessions' default, and prompt and agent hooks'. */
  readonly models: ModelProvider;
  /**
   * The models a session can pick with the "model" config option; its default's provider is
   * `models`. Absent (`hooks test`), no model option is offered and every session uses `models`.
   */
  readonly modelCatalog?: ModelCatalog;
  /** The directory the agent was started in: an allowed root. */
  readonly launchCwd: string;
  /** `$HOME`: an allowed root, and where transcripts live. */
  readonly home: string | undefined;
  readonly env: (name: string) => string | undefined;
  readonly defaultMode: PermissionModeId;
  readonly rules: readonly PermissionRule[];
  readonly maxToolRounds: number;
  /** When to compact and what one tool result may take; DEFAULT_CONTEXT_BUDGET when absent. */
  readonly contextBudget?: ContextBudgetSettings;
  /**
   * Stop continuations a turn allows before the next block is overridden, from
   * `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP` (stop_continuation.ts); Claude Code's 8 when absent.
   */
  readonly stopHookBlockCap?: number;
  /**
   * Whether a new session's Stop blocks continue its turn (`--[no-]stop-hooks-continue`);
   * undefined: by the session's profile (stop_continuation.ts). A session's own option may
   * change it afterwards.
   */
  readonly stopHooksContinue?: boolean;
  readonly version: string;
  /**
   * How the agent presents itself to hooks and the model: its tool names and shapes, `effort`,
   * when input is checked (`--compat`, compat_profile.ts). A profile forces it; `"auto"` decides
   * for each session from the hooks of its directory (src/hooks/profile_choice.ts).
   */
  readonly profile: ProfileSetting;
  /** Where a forced profile was set (`--compat`, its variable, the config file), for its reason. */
  readonly profileOrigin?: string;
  /**
   * `--plugin-dir` directories (absolute, in flag order) whose plugin hooks every session loads;
   * read only when the profile reads plugins.
   */
  readonly pluginDirs?: readonly string[];
  /**
   * Runs the hook handlers of a session whose allowed roots are `roots` (an `agent` hook reads
   * files under them).
   */
  readonly hookRunner: (roots: readonly string[]) => HandlerRunner;
  /** Sees every hook firing of every session (`hooks test`). */
  readonly observeFiring?: FiringObserver;
  /** Ids of new sessions; random UUIDs when absent (`hooks test` makes them deterministic). */
  readonly newSessionId?: () => string;
  /** Ids of prompts (hooks' `prompt_id`); random UUIDs when absent. */
  readonly newPromptId?: () => string;
  /**
   * How long Notification waits before `idle_prompt` and `permission_prompt`, where the profile
   * fires them; the profile's thresholds when absent (tests shorten them).
   */
  readonly notificationDelays?: NotificationDelays;
  /**
   * The whole environment of shell tool commands run on the agent's machine (clients without
   * `terminal`) and of MCP servers, and where a client terminal's env-file `$NAME`s are looked
   * up; the agent's own when absent (`hooks test` passes its hermetic one, `acp` its own without
   * the endpoint key's variable).
   */
  readonly shellEnv?: Readonly<Record<string, string>>;
  /**
   * The shell tool on the agent's machine (clients without `terminal`); a `LocalShellRunner`
   * with `shellEnv` when absent (`hooks test` answers commands from the scenario instead).
   */
  readonly localShell?: ShellRunner;
  /**
   * How long shutting down waits for sessions still being opened (default 2 s); sessions being
   * closed are waited for whatever this says, within their SessionEnd budget.
   */
  readonly shutdownWaitMs?: number;
  /** Limits for the sessions' MCP servers; the defaults when absent. */
  readonly mcp?: McpLimits;
  /** Everything the agent has to say goes to stderr through this. */
  readonly log: (line: string) => void;
}

export const DEFAULT_MAX_TOOL_ROUNDS = 32;

export interface McpLimits {
  /** From spawn to a listed toolset (default 30 s). */
  readonly startTimeoutMs?: number;
  /** One tool call (default 10 min). */
  readonly callTimeoutMs?: number;
  /** Between SIGTERM and SIGKILL of a stdio server's process group (default 1 s). */
  readonly killGraceMs?: number;
}
