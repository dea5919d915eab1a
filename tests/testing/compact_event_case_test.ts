/**
 * `hooks test` event cases for PreCompact and PostCompact: they fire under the claude profile,
 * their matcher is the trigger, and what a case expects is what a session would do with them.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";
import {
  command,
  failureSummary,
  hooksSettings,
  runEvent,
  withTempProject,
} from "./scenario_project.ts";

const KEEP = "cat > /dev/null; echo 'keep the API notes'";
const REFUSE = "cat > /dev/null; echo 'release build running' >&2; exit 2";
const CLAUDE = { profile: compatProfile("claude") };

const SETTINGS = hooksSettings({
  PreCompact: [
    { matcher: "manual", hooks: [command(KEEP)] },
    { matcher: "auto", hooks: [command(REFUSE)] },
  ],
  PostCompact: [{ hooks: [command(REFUSE)] }],
});

Deno.test("PreCompact: plain stdout is the summary's instructions and its line is shown; the trigger matches", async () => {
  await withTempProject({ ".claude/settings.json": SETTINGS }, async (project) => {
    const result = await runEvent(project, {
      name: "manual",
      event: "PreCompact",
      input: { trigger: "manual", custom_instructions: "focus on the tests" },
      expect: {
        decision: "none",
        matched: ["keep the API notes"],
        notMatched: ["release build"],
        context: "keep the API notes",
        notices: [`PreCompact [${KEEP}] completed successfully: keep the API notes`],
      },
    }, CLAUDE);
    assertEquals(failureSummary(result), []);
    assertEquals(result.status, "passed");
  });
});

Deno.test("PreCompact: exit 2 blocks the compaction, and the user reads which hook and why", async () => {
  await withTempProject({ ".claude/settings.json": SETTINGS }, async (project) => {
    const result = await runEvent(project, {
      name: "auto",
      event: "PreCompact",
      input: { trigger: "auto" },
      expect: {
        decision: "block",
        reason: `[${REFUSE}]: release build running`,
        notices: [`Compaction blocked by PreCompact hook:\n[${REFUSE}]: release build running`],
      },
    }, CLAUDE);
    assertEquals(failureSummary(result), []);
  });
});

Deno.test("PostCompact: exit 2 blocks nothing; its stderr is shown to the user", async () => {
  await withTempProject({ ".claude/settings.json": SETTINGS }, async (project) => {
    const result = await runEvent(project, {
      name: "post",
      event: "PostCompact",
      input: { trigger: "auto", compact_summary: "We fixed the parser." },
      expect: {
        decision: "none",
        exitCodes: [2],
        notices: [`PostCompact [${REFUSE}] failed: release build running`],
      },
    }, CLAUDE);
    assertEquals(failureSummary(result), []);
  });
});

Deno.test("a PreCompact case under the llama profile is an error that says which profile fires it", async () => {
  await withTempProject({ ".claude/settings.json": SETTINGS }, async (project) => {
    const result = await runEvent(project, {
      name: "llama",
      event: "PreCompact",
      input: { trigger: "manual" },
      expect: { decision: "none" },
    });
    assertEquals(result.status, "error");
    assert(result.error !== undefined);
    assertStringIncludes(
      result.error,
      '"PreCompact" does not fire in the "llama" profile: set "compat": "claude"',
    );
  });
});
