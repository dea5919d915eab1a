/**
 * A session's firer chooses a firing's hooks before anything else: a firing whose hooks match
 * nothing is over when chosen (observed, no payload built, no handler called), so a tool call
 * that no hook matches waits on nothing.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import {
  createSessionHookFirer,
  type FiringObserver,
} from "../../src/acp/session/session_hook_firer.ts";
import type { HookFiring } from "../../src/hooks/hook_engine.ts";
import type { HandlerRunner, HookPayload } from "../../src/hooks/handler_runner.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";
import { settings } from "./hook_fixtures.ts";

interface Fixture {
  readonly cwd: string;
  /** Payloads the handler runner was called with, in order. */
  readonly payloads: HookPayload[];
  /** Firings the observer was told of, with their `order`. */
  readonly observed: { readonly firing: HookFiring; readonly order: number }[];
}

async function withFirer(
  hooks: Parameters<typeof settings>[0],
  test: (
    firer: Awaited<ReturnType<typeof createSessionHookFirer>>,
    fixture: Fixture,
  ) => Promise<void>,
): Promise<void> {
  const cwd = await Deno.makeTempDir({ prefix: "session-hook-firer-" });
  try {
    await Deno.mkdir(`${cwd}/.claude`);
    await Deno.writeTextFile(`${cwd}/.claude/settings.json`, settings(hooks));
    const fixture: Fixture = { cwd, payloads: [], observed: [] };
    const runHandler: HandlerRunner = (_registration, payload) => {
      fixture.payloads.push(payload);
      return Promise.resolve({
        kind: "exited",
        exitCode: 0,
        signal: null,
        stdout: { text: "", discardedBytes: 0 },
        stderr: { text: "", discardedBytes: 0 },
        durationMs: 0,
      });
    };
    const observe: FiringObserver = (_sessionId, firing, order) =>
      fixture.observed.push({ firing, order });
    const firer = await createSessionHookFirer({
      session: {
        id: "s-1",
        cwd,
        transcriptPath: `${cwd}/raw.jsonl`,
        permissionMode: () => "default",
      },
      home: undefined,
      runHandler,
      profile: compatProfile("llama"),
      log: () => {},
      observe,
    });
    await test(firer, fixture);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
}

Deno.test("a PreToolUse whose hooks match nothing is over when chosen: observed at once, no handler run", async () => {
  await withFirer({ PreToolUse: [["shell", "true"]] }, async (firer, fixture) => {
    const selected = firer.select("PreToolUse", "fs_read", { file_path: "notes.txt" });
    assert(selected.done !== undefined, "a firing that matched nothing should be done");
    assertEquals(selected.done.runs.length, 0);
    assertEquals(selected.done.decision.verdict.kind, "none");
    // Observed before anything is awaited: the caller has nothing to wait for.
    assertEquals(fixture.observed.map(({ firing }) => firing), [selected.done]);
    assertEquals(
      await selected.run({
        tool_name: "fs_read",
        tool_input: { file_path: "notes.txt" },
        tool_use_id: "call_1",
      }),
      selected.done,
    );
    assertEquals(fixture.payloads, []);
    assertEquals(fixture.observed.length, 1);
  });
});

Deno.test("a PostToolUse hook whose regex matcher misses the tool is not run: fire resolves to the chosen, done firing", async () => {
  await withFirer({ PostToolUse: [["mcp__x__.*", "true"]] }, async (firer, fixture) => {
    assert(firer.select("PostToolUse", "fs_read", {}).done !== undefined);
    const firing = await firer.fire("PostToolUse", "fs_read", {
      tool_name: "fs_read",
      tool_input: { file_path: "notes.txt" },
      tool_response: "Water the plants",
      tool_use_id: "call_1",
      duration_ms: 1,
    });
    assertEquals(firing.runs.length, 0);
    assertEquals(fixture.payloads, []);
    assertEquals(fixture.observed.map(({ firing }) => firing.event), [
      "PostToolUse",
      "PostToolUse",
    ]);
  });
});

Deno.test("a matching PreToolUse is not done when chosen: run builds the payload, runs the hook, and is observed once", async () => {
  await withFirer({ PreToolUse: [["fs_read", "true"]] }, async (firer, fixture) => {
    const selected = firer.select("PreToolUse", "fs_read", { file_path: "notes.txt" });
    assertEquals(selected.done, undefined);
    assertEquals(fixture.observed, [], "a firing with hooks to run is observed once they ran");
    const firing = await selected.run({
      tool_name: "fs_read",
      tool_input: { file_path: "notes.txt" },
      tool_use_id: "call_1",
    }, { promptId: "p-1" });
    assertEquals(firing.runs.length, 1);
    assertEquals(fixture.payloads, [{
      session_id: "s-1",
      transcript_path: `${fixture.cwd}/raw.jsonl`,
      cwd: fixture.cwd,
      prompt_id: "p-1",
      permission_mode: "default",
      hook_event_name: "PreToolUse",
      tool_name: "fs_read",
      tool_input: { file_path: "notes.txt" },
      tool_use_id: "call_1",
    }]);
    assertEquals(fixture.observed.map(({ firing }) => firing), [firing]);
  });
});

Deno.test("firings are numbered in the order they are chosen, matched or not", async () => {
  await withFirer({ PreToolUse: [["fs_read", "true"]] }, async (firer, fixture) => {
    const matched = firer.select("PreToolUse", "fs_read", {});
    const unmatched = firer.select("PreToolUse", "shell", {});
    await matched.run({ tool_name: "fs_read", tool_input: {}, tool_use_id: "call_1" });
    assert(unmatched.done !== undefined);
    const [first, second] = fixture.observed;
    assert(first !== undefined && second !== undefined);
    // The unmatched one was observed first (at once), but chosen second.
    assertEquals(first.firing, unmatched.done);
    assertEquals(second.order, first.order - 1);
  });
});
