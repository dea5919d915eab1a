/**
 * A session's settings as its transcript keeps them: the permission mode, the config options (the
 * model picked among them) and the tool names answered "always reject". Restored on load and
 * resume so that a session set to ask before every call does not come back running reads
 * unasked. "Always allow" answers are not kept: the restrictive state is what survives, and a
 * session brought back asks again. A recorded model that the agent no longer offers falls back
 * to the default (session_config.ts).
 *
 * The recorded mode does not override a stricter one that the agent process was started with
 * (`--permission-policy`): that is what the person who launched it chose, while a transcript is
 * a file that anyone who can write `$HOME` can edit. Strictest first: `always-ask` runs nothing
 * unasked; `rule-based` runs unasked only what this process's own rules file allows (nothing
 * without one); `auto-approve-reads` runs every read unasked, whatever the rules say.
 */
import { isPermissionModeId, type PermissionModeId } from "../permissions/permission_policy.ts";
import type { SettingsRecord, TranscriptRecord } from "./transcript_record.ts";

export interface SessionSettings {
  readonly mode: PermissionModeId;
  readonly stopHooksContinue: boolean;
  readonly alwaysRejected: readonly string[];
  /**
   * The model picked with the "model" config option (a model catalog id); absent, the session
   * follows the agent's default model (older transcripts hold none).
   */
  readonly model?: string;
}

/** Restored when a recorded mode is unknown to this version: nothing runs unasked. */
const FALLBACK_MODE: PermissionModeId = "always-ask";

/** Higher is stricter: what runs without asking is a subset, or chosen by the launcher. */
const STRICTNESS: Readonly<Record<PermissionModeId, number>> = {
  "auto-approve-reads": 0,
  "rule-based": 1,
  "always-ask": 2,
};

export type RestoredSettings =
  | {
    readonly recorded: true;
    readonly settings: SessionSettings;
    /** The mode as the transcript holds it; `settings.mode` differs when it was not restored. */
    readonly recordedMode: string;
  }
  | { readonly recorded: false; readonly settings: SessionSettings };

/**
 * The last settings the transcript recorded, or `defaults` (the process's own) for one that holds
 * none (older ones). The mode is the stricter of the recorded one and `defaults.mode`.
 */
export function settingsFromTranscript(
  records: readonly TranscriptRecord[],
  defaults: SessionSettings,
): RestoredSettings {
  const last = records.findLast((r): r is SettingsRecord => r.type === "settings");
  if (!last) return { recorded: false, settings: defaults };
  const recorded = isPermissionModeId(last.mode) ? last.mode : FALLBACK_MODE;
  return {
    recorded: true,
    settings: {
      mode: stricterMode(recorded, defaults.mode),
      stopHooksContinue: last.stopHooksContinue,
      alwaysRejected: [...last.alwaysRejected],
      ...(last.model === undefined ? {} : { model: last.model }),
    },
    recordedMode: last.mode,
  };
}

function stricterMode(a: PermissionModeId, b: PermissionModeId): PermissionModeId {
  return STRICTNESS[a] >= STRICTNESS[b] ? a : b;
}

export function settingsRecord(settings: SessionSettings): SettingsRecord {
  return {
    type: "settings",
    mode: settings.mode,
    stopHooksContinue: settings.stopHooksContinue,
    alwaysRejected: [...settings.alwaysRejected],
    ...(settings.model === undefined ? {} : { model: settings.model }),
  };
}
