/**
 * A compaction in the Claude-format transcript, as Claude Code writes one: a `compact_boundary`
 * system record that starts the chain again (`parentUuid: null`, `logicalParentUuid` naming what
 * it replaced), then the summary as an `isCompactSummary` user message the rest hangs off.
 * Compaction hooks leave no record of their own.
 */
import { assertEquals } from "../helpers/assert.ts";
import { ClaudeTranscript } from "../../src/agent/transcript/claude_transcript.ts";
import type { FiredEventName } from "../../src/hooks/event_table.ts";
import type { HandlerResult } from "../../src/hooks/handler_result.ts";
import { fireHooks, type HookFiring } from "../../src/hooks/hook_engine.ts";
import { answered, commandRegistration, exited } from "../hooks/registration_fixture.ts";
import { withTempDir } from "./temp_dir.ts";

const TIME = "2026-12-01T09:14:52.851Z";
const TAIL = {
  userType: "external",
  entrypoint: "sdk-cli",
  cwd: "/work/proj",
  sessionId: "s-1",
  version: "1.2.3",
};

/** A transcript with a pinned clock and uuids `u<first>`, `u<first+1>`, ... */
async function openTranscript(path: string, first = 1) {
  let n = first - 1;
  const transcript = new ClaudeTranscript({
    path,
    cwd: "/work/proj",
    sessionId: "s-1",
    version: "1.2.3",
    log: () => {},
    now: () => new Date(TIME),
    newUuid: () => `u${++n}`,
  });
  await transcript.open();
  return transcript;
}

async function records(path: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(path);
  return text === "" ? [] : text.trimEnd().split("\n").map((line) => JSON.parse(line));
}

const SUMMARY = "Summary:\n1. The user asked for a parser fix; tests pass now.";

Deno.test("a compaction is a compact_boundary that restarts the chain, then the summary the rest hangs off", async () => {
  await withTempDir({}, async (dir) => {
    const path = `${dir}/t.jsonl`;
    const t = await openTranscript(path);
    t.prompt({ promptId: "p-1", text: "fix the parser", permissionMode: "default" });
    t.compacted({ trigger: "manual", preTokens: 3_412, summary: SUMMARY, promptId: "p-1" });
    t.prompt({ promptId: "p-2", text: "now the lexer", permissionMode: "default" });
    t.endTurn();
    await t.close();

    const [prompt, boundary, summary, next, last] = (await Deno.readTextFile(path))
      .trimEnd().split("\n");
    assertEquals(JSON.parse(prompt!).uuid, "u1");
    assertEquals(
      boundary,
      JSON.stringify({
        parentUuid: null,
        logicalParentUuid: "u1",
        isSidechain: false,
        type: "system",
        subtype: "compact_boundary",
        content: "Conversation compacted",
        isMeta: false,
        timestamp: TIME,
        uuid: "u2",
        level: "info",
        compactMetadata: { trigger: "manual", preTokens: 3_412 },
        ...TAIL,
      }),
    );
    assertEquals(
      summary,
      JSON.stringify({
        parentUuid: "u2",
        isSidechain: false,
        promptId: "p-1",
        type: "user",
        message: { role: "user", content: SUMMARY },
        isVisibleInTranscriptOnly: true,
        isCompactSummary: true,
        uuid: "u3",
        timestamp: TIME,
        ...TAIL,
      }),
    );
    assertEquals([JSON.parse(next!).parentUuid, JSON.parse(next!).uuid], ["u3", "u4"]);
    assertEquals(JSON.parse(last!), {
      type: "last-prompt",
      lastPrompt: "now the lexer",
      leafUuid: "u4",
      sessionId: "s-1",
    });
  });
});

Deno.test("a compaction of a transcript with nothing in it names no logical parent; auto without a prompt has no promptId", async () => {
  await withTempDir({}, async (dir) => {
    const path = `${dir}/t.jsonl`;
    const t = await openTranscript(path);
    t.compacted({ trigger: "auto", preTokens: 0, summary: SUMMARY });
    await t.close();
    const [boundary, summary] = await records(path);
    assertEquals("logicalParentUuid" in boundary!, false);
    assertEquals(boundary!.parentUuid, null);
    assertEquals(boundary!.compactMetadata, { trigger: "auto", preTokens: 0 });
    assertEquals("promptId" in summary!, false);
    assertEquals(summary!.parentUuid, boundary!.uuid);
  });
});

Deno.test("a transcript opened again after a compaction goes on from its summary", async () => {
  await withTempDir({}, async (dir) => {
    const path = `${dir}/t.jsonl`;
    const first = await openTranscript(path);
    first.prompt({ promptId: "p-1", text: "one", permissionMode: "default" });
    first.compacted({ trigger: "auto", preTokens: 900, summary: SUMMARY, promptId: "p-1" });
    await first.close();
    const second = await openTranscript(path, 10);
    second.prompt({ promptId: "p-2", text: "two", permissionMode: "default" });
    await second.close();
    assertEquals((await records(path)).map((r) => [r.uuid, r.parentUuid]), [
      ["u1", null],
      ["u2", null],
      ["u3", "u2"],
      ["u10", "u3"],
    ]);
  });
});

/** One firing of `event` whose hooks answer `results`, in order. */
function firing(
  event: FiredEventName,
  matcherValue: string,
  results: readonly HandlerResult[],
): Promise<HookFiring> {
  const registrations = results.map((_, order) =>
    commandRegistration(`./hook${order}.sh`, { event, order })
  );
  return fireHooks({
    event,
    matcherValue,
    payload: { hook_event_name: event },
    registrations,
    runHandler: (registration) => Promise.resolve(results[registration.order]!),
    context: { event, cwd: "/work/proj", sessionId: "s-1" },
  });
}

Deno.test("PreCompact and PostCompact hooks leave no record, whatever they print", async () => {
  await withTempDir({}, async (dir) => {
    const path = `${dir}/t.jsonl`;
    const t = await openTranscript(path);
    const printed = [exited(0, { stdout: "keep the notes\n" }), answered({ systemMessage: "x" })];
    t.recordFiring(await firing("PreCompact", "manual", printed), undefined);
    t.recordFiring(await firing("PostCompact", "manual", printed), undefined);
    // A SessionStart hook printing the same is recorded: the skip is the compaction events'.
    t.recordFiring(await firing("SessionStart", "startup", printed), undefined);
    await t.close();
    assertEquals(
      (await records(path)).map((r) => {
        const { type, hookEvent } = r.attachment as { type: string; hookEvent: string };
        return `${hookEvent} ${type}`;
      }),
      [
        "SessionStart hook_success",
        "SessionStart hook_success",
        "SessionStart hook_system_message",
      ],
    );
  });
});
