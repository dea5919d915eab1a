/**
 * A session's settings as its transcript keeps them: the permission mode, the config options and
 * the tool names answered "always reject". Restored on load and resume so that a session set to
 * ask before every call does not come back running reads unasked. "Always allow" answers are not
 * kept: the restrictive state is what survives, and a session brought back asks again.
 */
import { isPermissionModeId, type PermissionModeId } from "./permission_policy.ts";
import type { SettingsRecord, TranscriptRecord } from "./transcript_record.ts";

export interface SessionSettings {
  readonly mode: PermissionModeId;
  readonly stopHooksContinue: boolean;
  readonly alwaysRejected: readonly string[];
}

/** Restored when a recorded mode is unknown to this version: nothing runs unasked. */
const FALLBACK_MODE: PermissionModeId = "always-ask";

export type RestoredSettings =
  | { readonly recorded: true; readonly settings: SessionSettings; readonly unknownMode?: string }
  | { readonly recorded: false; readonly settings: SessionSettings };

/** The last settings the transcript recorded, or `defaults` for one that holds none (older ones). */
export function settingsFromTranscript(
  records: readonly TranscriptRecord[],
  defaults: SessionSettings,
): RestoredSettings {
  const last = records.findLast((r): r is SettingsRecord => r.type === "settings");
  if (!last) return { recorded: false, settings: defaults };
  const { mode } = last;
  const known = isPermissionModeId(mode);
  return {
    recorded: true,
    settings: {
      mode: known ? mode : FALLBACK_MODE,
      stopHooksContinue: last.stopHooksContinue,
      alwaysRejected: [...last.alwaysRejected],
    },
    ...(known ? {} : { unknownMode: mode }),
  };
}

export function settingsRecord(settings: SessionSettings): SettingsRecord {
  return {
    type: "settings",
    mode: settings.mode,
    stopHooksContinue: settings.stopHooksContinue,
    alwaysRejected: [...settings.alwaysRejected],
  };
}
