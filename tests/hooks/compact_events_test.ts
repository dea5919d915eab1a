/**
 * PreCompact and PostCompact as the hooks room sees them: registered and fired in the claude
 * profile only, matched on `trigger`, with Claude Code's payload, and its answers read as Claude
 * Code reads them (PreCompact blocks, PostCompact cannot).
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { eventGroup, firedEvents, HOOK_EVENTS, isFiredEvent } from "../../src/hooks/event_table.ts";
import { completePayload } from "../../src/hooks/payload_defaults.ts";
import { buildPayload } from "../../src/hooks/payload.ts";
import { buildRegistry, selectRegistrations } from "../../src/hooks/registry.ts";
import { loadSettingsChain } from "../../src/hooks/settings/settings_chain.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";
import { answered, decide, exited, id } from "./registration_fixture.ts";
import { hooksFile, withChain } from "./temp_chain.ts";

const CLAUDE = compatProfile("claude");
const LLAMA = compatProfile("llama");

const SESSION = {
  sessionId: "sess-1",
  transcriptPath: "/home/u/.claude/projects/-project/sess-1.jsonl",
  cwd: "/project",
  promptId: "prompt-1",
  permissionMode: "acceptEdits",
  effort: { level: "medium" },
} as const;

// The table and the profiles

Deno.test("PreCompact and PostCompact fire in the claude profile; the llama profile keeps them unfired", () => {
  assertEquals(
    [eventGroup("PreCompact", CLAUDE), eventGroup("PostCompact", CLAUDE)],
    ["fired", "fired"],
  );
  assertEquals(
    [eventGroup("PreCompact", LLAMA), eventGroup("PostCompact", LLAMA)],
    ["dropped", "never_emitted"],
  );
  assert(firedEvents(CLAUDE).includes("PreCompact") && firedEvents(CLAUDE).includes("PostCompact"));
  assert(!isFiredEvent("PreCompact", LLAMA) && !isFiredEvent("PostCompact", LLAMA));
  assertEquals(HOOK_EVENTS.PreCompact.matcherField, "trigger");
  assertEquals([HOOK_EVENTS.PreCompact.blockable, HOOK_EVENTS.PostCompact.blockable], [
    true,
    false,
  ]);
});

// Payloads

Deno.test("PreCompact's payload: the common fields without permission_mode or effort, then trigger and custom_instructions", () => {
  const payload = buildPayload("PreCompact", SESSION, {
    trigger: "manual",
    custom_instructions: "keep the API notes",
  });
  assertEquals(
    JSON.stringify(payload),
    '{"session_id":"sess-1","transcript_path":"/home/u/.claude/projects/-project/sess-1.jsonl",' +
      '"cwd":"/project","prompt_id":"prompt-1","hook_event_name":"PreCompact",' +
      '"trigger":"manual","custom_instructions":"keep the API notes"}',
  );
});

Deno.test("PostCompact's payload ends with trigger and compact_summary", () => {
  const payload = buildPayload("PostCompact", SESSION, {
    trigger: "auto",
    compact_summary: "We fixed the parser; tests pass.",
  });
  assertEquals(Object.keys(payload), [
    "session_id",
    "transcript_path",
    "cwd",
    "prompt_id",
    "hook_event_name",
    "trigger",
    "compact_summary",
  ]);
  assertEquals([payload.trigger, payload.compact_summary], [
    "auto",
    "We fixed the parser; tests pass.",
  ]);
});

Deno.test("a partial compaction payload is completed as a manual /compact with no text, and matches on trigger", () => {
  const pre = completePayload("PreCompact", {}, SESSION);
  assert(pre.ok);
  assertEquals([pre.payload.trigger, pre.payload.custom_instructions, pre.matcherValue], [
    "manual",
    "",
    "manual",
  ]);
  const post = completePayload("PostCompact", { trigger: "auto" }, SESSION);
  assert(post.ok);
  assertEquals([post.payload.compact_summary, post.matcherValue], ["", "auto"]);
  const bad = completePayload("PreCompact", { trigger: 1 }, SESSION);
  assertEquals(bad, { ok: false, error: '"trigger" must be a string for PreCompact' });
});

// PreCompact's answers

Deno.test("PreCompact exit 2 blocks with [<cmd>]: <stderr>; an empty stderr says so", () => {
  const decision = decide("PreCompact", [
    exited(2, { stderr: "release build running\n" }),
    exited(2),
  ]);
  assert(decision.verdict.kind === "block");
  assertEquals(
    decision.verdict.reason,
    "[./hook0.sh]: release build running\n[./hook1.sh]: No stderr output",
  );
});

Deno.test('PreCompact {"decision":"block"} blocks with its reason, or the default one', () => {
  const withReason = decide("PreCompact", [answered({ decision: "block", reason: "not now" })]);
  assert(withReason.verdict.kind === "block");
  assertEquals(withReason.verdict.reason, "not now");
  const bare = decide("PreCompact", [answered({ decision: "block" })]);
  assert(bare.verdict.kind === "block");
  assertEquals(bare.verdict.reason, "Blocked by hook");
});

Deno.test("PreCompact continue:false stops, and beats a block", () => {
  const decision = decide("PreCompact", [
    exited(2, { stderr: "no" }),
    answered({ continue: false, stopReason: "Saving state first" }),
  ]);
  assertEquals(decision.verdict, {
    kind: "stop",
    by: id("PreCompact", 1),
    stopReason: "Saving state first",
  });
});

Deno.test("PreCompact plain stdout is kept as text (the summary's instructions); additionalContext is not read", () => {
  const decision = decide("PreCompact", [
    exited(0, { stdout: "keep the API notes\n" }),
    answered({ additionalContext: "ignored here", systemMessage: "saved a snapshot" }),
  ]);
  assertEquals(decision.verdict, { kind: "none" });
  assertEquals(decision.texts, [{ by: id("PreCompact", 0), text: "keep the API notes" }]);
  assertEquals(decision.contexts, []);
  assertEquals(decision.systemMessages, [{ by: id("PreCompact", 1), text: "saved a snapshot" }]);
  assertEquals(decision.ignored, [{
    by: id("PreCompact", 1),
    text: '"additionalContext" has no effect on PreCompact',
  }]);
});

Deno.test("a PreCompact hookSpecificOutput is invalid output, a non-blocking error, as Claude Code rejects it", () => {
  const decision = decide("PreCompact", [
    answered({ hookSpecificOutput: { hookEventName: "PreCompact", additionalContext: "x" } }),
  ]);
  assertEquals(decision.verdict, { kind: "none" });
  assertEquals(decision.errors.map((e) => e.cause), ["output_invalid"]);
});

// PostCompact's answers

Deno.test("PostCompact cannot block: exit 2, a JSON block and continue:false decide nothing", () => {
  const decision = decide("PostCompact", [
    exited(2, { stderr: "could not archive" }),
    answered({ decision: "block", reason: "no" }),
    answered({ continue: false, stopReason: "halt" }),
    exited(0, { stdout: "archived the summary" }),
  ]);
  assertEquals(decision.verdict, { kind: "none" });
  assertEquals(decision.ignored.map((said) => said.text), [
    "A block has no effect on PostCompact: [./hook0.sh]: could not archive",
    "A block has no effect on PostCompact: no",
    '"continue": false has no effect on PostCompact',
  ]);
  assertEquals(decision.texts, [{ by: id("PostCompact", 3), text: "archived the summary" }]);
});

// Registration and matching

const COMPACT_HOOKS = hooksFile({
  PreCompact: [
    { matcher: "manual", hooks: [{ type: "command", command: "manual.sh" }] },
    { matcher: "auto", hooks: [{ type: "command", command: "auto.sh" }] },
    { hooks: [{ type: "command", command: "always.sh" }] },
  ],
  PostCompact: [{ matcher: "[", hooks: [{ type: "command", command: "post.sh" }] }],
});

Deno.test("claude profile: compaction hooks register, and the trigger picks the groups that run", async () => {
  await withChain({ project: COMPACT_HOOKS }, async (dirs) => {
    const loaded = await loadSettingsChain({ cwd: dirs.cwd, home: dirs.home, profile: CLAUDE });
    // "[" is a regex that does not compile: a matcher the claude profile tests, so it is refused.
    assertEquals(loaded.diagnostics.map((d) => [d.code, d.pointer]), [
      ["MATCHER_INVALID", "/hooks/PostCompact/0/matcher"],
    ]);
    const registry = buildRegistry(loaded);
    const commandsFor = (trigger: string) =>
      selectRegistrations(registry, "PreCompact", trigger).matched.map((r) =>
        r.handler.type === "command" ? r.handler.command : r.handler.type
      );
    assertEquals(commandsFor("manual"), ["manual.sh", "always.sh"]);
    assertEquals(commandsFor("auto"), ["auto.sh", "always.sh"]);
  });
});

Deno.test("llama profile: PreCompact is dropped with why; PostCompact registers but nothing tests its matcher", async () => {
  await withChain({ project: COMPACT_HOOKS }, async (dirs) => {
    const loaded = await loadSettingsChain({ cwd: dirs.cwd, home: dirs.home, profile: LLAMA });
    assertEquals(loaded.diagnostics, []);
    const registry = buildRegistry(loaded);
    assertEquals(registry.registrations.map((r) => [r.event, r.matcherSource]), [
      ["PostCompact", "["],
    ]);
    assertEquals(
      [...new Set(registry.notRegistered.map((n) => `${n.event} ${n.status}: ${n.reason}`))],
      [
        'PreCompact dropped: "PreCompact" fires only with --compat claude; the llama profile ' +
        "drops it",
      ],
    );
  });
});
