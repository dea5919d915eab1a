/**
 * The compaction engine's door to PreCompact and PostCompact: real settings, real hook
 * processes, a session's own hook firer. What the hooks received, what the engine is told, and
 * what the user is shown.
 */
import {
  mergeCompactInstructions,
  runPostCompactHooks,
  runPreCompactHooks,
} from "../../src/acp/compaction/compact_hooks.ts";
import {
  createSessionHookFirer,
  type SessionHookFirer,
} from "../../src/acp/session/session_hook_firer.ts";
import { createHandlerRunner } from "../../src/hooks/handlers/handler_dispatch.ts";
import { compatProfile, type CompatProfileId } from "../../src/profile/compat_profile.ts";
import { assertEquals } from "../helpers/assert.ts";
import { logging, printing, readLog, settings } from "./hook_fixtures.ts";

interface CompactFixture {
  readonly session: { readonly hooks: SessionHookFirer; notice(text: string): void };
  readonly notices: string[];
  readonly cwd: string;
  readonly transcriptPath: string;
}

async function withCompactSession(
  hooks: Parameters<typeof settings>[0],
  test: (fixture: CompactFixture) => Promise<void>,
  profile: CompatProfileId = "claude",
): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "compact-hooks-" });
  try {
    const cwd = `${root}/project`;
    const home = `${root}/home`;
    await Deno.mkdir(`${cwd}/.claude`, { recursive: true });
    await Deno.mkdir(home);
    await Deno.writeTextFile(`${cwd}/.claude/settings.json`, settings(hooks));
    const transcriptPath = `${home}/.claude/projects/-project/s-1.jsonl`;
    const firer = await createSessionHookFirer({
      session: {
        id: "s-1",
        cwd,
        transcriptPath,
        permissionMode: () => "acceptEdits",
      },
      home,
      runHandler: createHandlerRunner({
        baseEnv: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: home },
        killGraceMs: 100,
      }),
      profile: compatProfile(profile),
      log: () => {},
    });
    const notices: string[] = [];
    await test({
      session: { hooks: firer, notice: (text) => notices.push(text) },
      notices,
      cwd,
      transcriptPath,
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const signal = () => new AbortController().signal;
const KEEP = `cat > /dev/null; echo 'keep the API notes'`;
const REFUSE = `cat > /dev/null; echo 'release build running' >&2; exit 2`;

Deno.test("PreCompact: Claude Code's payload, plain stdout becomes the summary's instructions and is shown", async () => {
  const log = logging("pre.log");
  await withCompactSession({
    PreCompact: [["manual", log], ["manual", KEEP], ["auto", REFUSE]],
  }, async ({ session, notices, cwd, transcriptPath }) => {
    const gate = await runPreCompactHooks(session, {
      trigger: "manual",
      customInstructions: "focus on the parser",
      signal: signal(),
      promptId: "prompt-7",
    });
    assertEquals(gate, { kind: "go", instructions: "keep the API notes" });
    const [payload, ...more] = await readLog(`${cwd}/pre.log`);
    assertEquals(more, []);
    // In Claude Code's key order, without permission_mode or effort.
    assertEquals(
      JSON.stringify(payload),
      JSON.stringify({
        session_id: "s-1",
        transcript_path: transcriptPath,
        cwd,
        prompt_id: "prompt-7",
        hook_event_name: "PreCompact",
        trigger: "manual",
        custom_instructions: "focus on the parser",
      }),
    );
    assertEquals(notices, [`PreCompact [${KEEP}] completed successfully: keep the API notes`]);
  });
});

Deno.test("PreCompact: several hooks' instructions are joined by a blank line, in chain order", async () => {
  await withCompactSession({
    PreCompact: [[null, "cat > /dev/null; sleep 0.2; echo first"], [null, "echo second"]],
  }, async ({ session }) => {
    const gate = await runPreCompactHooks(session, {
      trigger: "auto",
      customInstructions: "",
      signal: signal(),
    });
    assertEquals(gate, { kind: "go", instructions: "first\n\nsecond" });
  });
});

Deno.test("PreCompact: exit 2 blocks an automatic compaction, naming the hook and its stderr; a manual-only hook does not run", async () => {
  const log = logging("manual.log");
  await withCompactSession({
    PreCompact: [["manual", log], ["auto", REFUSE]],
  }, async ({ session, notices, cwd }) => {
    const gate = await runPreCompactHooks(session, {
      trigger: "auto",
      customInstructions: "",
      signal: signal(),
    });
    assertEquals(gate, {
      kind: "blocked",
      message: `Compaction blocked by PreCompact hook:\n[${REFUSE}]: release build running`,
    });
    assertEquals(await readLog(`${cwd}/manual.log`), []);
    assertEquals(notices, []);
  });
});

Deno.test('PreCompact: {"decision":"block"} blocks with its reason; continue:false stops with its stopReason', async () => {
  await withCompactSession({
    PreCompact: [["manual", printing({ decision: "block", reason: "unsaved notes" })]],
  }, async ({ session }) => {
    const gate = await runPreCompactHooks(session, {
      trigger: "manual",
      customInstructions: "",
      signal: signal(),
    });
    assertEquals(gate, {
      kind: "blocked",
      message: "Compaction blocked by PreCompact hook:\nunsaved notes",
    });
  });
  await withCompactSession({
    PreCompact: [[null, printing({ continue: false, stopReason: "Saving state first" })]],
  }, async ({ session, notices }) => {
    const gate = await runPreCompactHooks(session, {
      trigger: "manual",
      customInstructions: "",
      signal: signal(),
    });
    assertEquals(gate, {
      kind: "blocked",
      message: "PreCompact hook stopped continuation: Saving state first",
    });
    assertEquals(notices, []);
  });
});

Deno.test("PreCompact: a hook that fails does not stop the compaction; the user is told which and why", async () => {
  const crash = "cat > /dev/null; echo boom >&2; exit 1";
  await withCompactSession({
    PreCompact: [[null, crash], [null, printing({ systemMessage: "snapshot saved" })]],
  }, async ({ session, notices }) => {
    const gate = await runPreCompactHooks(session, {
      trigger: "auto",
      customInstructions: "",
      signal: signal(),
    });
    assertEquals(gate, { kind: "go" });
    assertEquals(notices, [
      `PreCompact [${crash}] failed: boom`,
      "PreCompact says: snapshot saved",
    ]);
  });
});

Deno.test("PreCompact: a cancel kills a hanging hook at once, and says nothing to the user", async () => {
  await withCompactSession({
    PreCompact: [[null, "cat > /dev/null; echo started > started; sleep 30"]],
  }, async ({ session, notices, cwd }) => {
    const controller = new AbortController();
    const started = Date.now();
    const gate = runPreCompactHooks(session, {
      trigger: "manual",
      customInstructions: "",
      signal: controller.signal,
    });
    while (!(await Deno.stat(`${cwd}/started`).then(() => true, () => false))) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    controller.abort();
    assertEquals(await gate, { kind: "go" });
    assertEquals(Date.now() - started < 10_000, true);
    assertEquals(notices, []);
  });
});

Deno.test("PostCompact: gets the summary; it cannot block: exit 2's stderr and plain stdout are the user's", async () => {
  const log = logging("post.log");
  await withCompactSession({
    PostCompact: [["auto", log], [null, REFUSE], ["auto", "cat > /dev/null; echo archived"]],
  }, async ({ session, notices, cwd }) => {
    const done = await runPostCompactHooks(session, {
      trigger: "auto",
      summary: "We fixed the parser; tests pass.",
      signal: signal(),
      promptId: "prompt-8",
    });
    assertEquals(done, undefined);
    const [payload] = await readLog(`${cwd}/post.log`);
    assertEquals(Object.keys(payload!), [
      "session_id",
      "transcript_path",
      "cwd",
      "prompt_id",
      "hook_event_name",
      "trigger",
      "compact_summary",
    ]);
    assertEquals(payload!.compact_summary, "We fixed the parser; tests pass.");
    assertEquals(notices, [
      `PostCompact [${REFUSE}] failed: release build running`,
      "PostCompact [cat > /dev/null; echo archived] completed successfully: archived",
    ]);
  });
});

Deno.test("llama profile: compaction hooks in the settings never run, and the compaction goes on", async () => {
  await withCompactSession({
    PreCompact: [[null, `${logging("hooks.log")}; exit 2`]],
    PostCompact: [[null, logging("hooks.log")]],
  }, async ({ session, notices, cwd }) => {
    const gate = await runPreCompactHooks(session, {
      trigger: "manual",
      customInstructions: "",
      signal: signal(),
    });
    await runPostCompactHooks(session, { trigger: "manual", summary: "s", signal: signal() });
    assertEquals(gate, { kind: "go" });
    assertEquals(await readLog(`${cwd}/hooks.log`), []);
    assertEquals(notices, []);
  }, "llama");
});

Deno.test("the summary's instructions: the user's, then the hooks', a blank line between", () => {
  assertEquals(
    mergeCompactInstructions("focus on tests", "keep notes"),
    "focus on tests\n\nkeep notes",
  );
  assertEquals(mergeCompactInstructions("  ", "keep notes"), "keep notes");
  assertEquals(mergeCompactInstructions(" focus ", undefined), "focus");
  assertEquals(mergeCompactInstructions("", undefined), undefined);
});
