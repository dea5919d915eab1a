/**
 * Which permission mode a session brought back runs in: the one its transcript recorded, unless
 * the agent process was started with a stricter one (`--permission-policy`), which then holds.
 * Strictest first: always-ask (nothing runs unasked), rule-based (only what this process's own
 * rules file allows runs unasked), auto-approve-reads (every read runs unasked).
 */
import { assertEquals } from "../helpers/assert.ts";
import type { PermissionModeId } from "../../src/agent/permissions/permission_policy.ts";
import type { TranscriptRecord } from "../../src/agent/transcript/transcript_record.ts";
import { settingsFromTranscript } from "../../src/agent/transcript/transcript_settings.ts";
import { SESSION_RECORD } from "./transcript_records.ts";

function restoredMode(recorded: string, processMode: PermissionModeId): string {
  const records: TranscriptRecord[] = [
    SESSION_RECORD,
    { type: "settings", mode: recorded, stopHooksContinue: true, alwaysRejected: ["shell"] },
  ];
  const defaults = { mode: processMode, stopHooksContinue: false, alwaysRejected: [] };
  const restored = settingsFromTranscript(records, defaults);
  // Only the mode is weighed against the process: the rest is the session's own.
  assertEquals(restored.settings.stopHooksContinue, true);
  assertEquals(restored.settings.alwaysRejected, ["shell"]);
  return restored.settings.mode;
}

Deno.test("a recorded mode is restored unless the agent's own mode is stricter", () => {
  const table: [recorded: string, processMode: PermissionModeId, restored: string][] = [
    ["always-ask", "auto-approve-reads", "always-ask"],
    ["always-ask", "rule-based", "always-ask"],
    ["rule-based", "auto-approve-reads", "rule-based"],
    ["auto-approve-reads", "auto-approve-reads", "auto-approve-reads"],
    ["auto-approve-reads", "rule-based", "rule-based"],
    ["auto-approve-reads", "always-ask", "always-ask"],
    ["rule-based", "always-ask", "always-ask"],
    // A mode this version does not know: nothing runs unasked.
    ["ask-the-moon", "auto-approve-reads", "always-ask"],
  ];
  assertEquals(
    table.map((
      [recorded, processMode],
    ) => [recorded, processMode, restoredMode(recorded, processMode)]),
    table,
  );
});

Deno.test("a transcript without settings takes the agent's own", () => {
  const defaults = { mode: "rule-based" as const, stopHooksContinue: false, alwaysRejected: [] };
  assertEquals(settingsFromTranscript([SESSION_RECORD], defaults), {
    recorded: false,
    settings: defaults,
  });
});
