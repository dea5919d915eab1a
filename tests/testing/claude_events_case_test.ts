/**
 * `hooks test` names every event the claude profile fires: PermissionRequest, SessionEnd and
 * PostToolBatch as an event case's event and in a session case's `expect.hooks`; a SessionEnd
 * logger is tested through the file it writes (`expect.files` with `{contains}` / `{matches}`);
 * and a case asserts what a prompt hook's evaluator was sent (`evaluatorSaw`).
 */
import { assertEquals } from "../helpers/assert.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";
import {
  command,
  failureSummary,
  hooksSettings,
  runEvent,
  runSession,
  withTempProject,
} from "./scenario_project.ts";

const CLAUDE = { profile: compatProfile("claude") };

const DENY_RM = `cat > /dev/null; printf '%s' '{"hookSpecificOutput":{"hookEventName":` +
  `"PermissionRequest","decision":{"behavior":"deny","message":"no rm here"}}}'`;
const END_LOGGER = `cat >> "$CLAUDE_PROJECT_DIR/end.log"; echo >> "$CLAUDE_PROJECT_DIR/end.log"`;
const BATCH_GATE = "cat > /dev/null; echo 'run the linter before you go on' >&2; exit 2";

const SETTINGS = hooksSettings({
  PermissionRequest: [{ matcher: "Bash", hooks: [command(DENY_RM)] }],
  SessionEnd: [{ hooks: [command(END_LOGGER)] }],
  PostToolBatch: [{ hooks: [command(BATCH_GATE)] }],
});

Deno.test("event case: PermissionRequest fires under the claude profile, its matcher the tool name", async () => {
  await withTempProject({ ".claude/settings.json": SETTINGS }, async (project) => {
    const result = await runEvent(project, {
      name: "deny rm",
      event: "PermissionRequest",
      input: { tool_name: "Bash", tool_input: { command: "rm -rf build" } },
      expect: { decision: "deny", reason: "no rm here", matched: ["no rm here"] },
    }, CLAUDE);
    assertEquals(failureSummary(result), []);
    assertEquals(result.status, "passed");
  });
});

Deno.test("event case: SessionEnd runs its logger, whose file the case can read back", async () => {
  await withTempProject({ ".claude/settings.json": SETTINGS }, async (project) => {
    const result = await runEvent(project, {
      name: "end",
      event: "SessionEnd",
      input: { reason: "logout" },
      expect: { decision: "none", exitCodes: [0], matched: ["end.log"] },
    }, CLAUDE);
    assertEquals(failureSummary(result), []);
    const [logged] = (await Deno.readTextFile(`${project.dir}/end.log`)).trim().split("\n");
    assertEquals(JSON.parse(logged!).reason, "logout");
  });
});

Deno.test("event case: a PostToolBatch exit 2 is a block with the hook's stderr", async () => {
  await withTempProject({ ".claude/settings.json": SETTINGS }, async (project) => {
    const result = await runEvent(project, {
      name: "gate",
      event: "PostToolBatch",
      expect: { decision: "block", reason: { contains: "run the linter" }, exitCodes: [2] },
    }, CLAUDE);
    assertEquals(failureSummary(result), []);
  });
});

Deno.test("event case: the llama profile fires none of them, and says which profile does", async () => {
  await withTempProject({ ".claude/settings.json": SETTINGS }, async (project) => {
    const result = await runEvent(project, {
      name: "end",
      event: "SessionEnd",
      expect: { decision: "none" },
    }, { profile: compatProfile("llama") });
    assertEquals(result.status, "error");
    assertEquals(
      result.error?.startsWith('"SessionEnd" does not fire in the "llama" profile: set "compat"'),
      true,
      result.error,
    );
  });
});

/** One Bash call the PermissionRequest hook refuses, then an answer. */
const BASH_SESSION = {
  model: {
    turns: [
      { toolCalls: [{ name: "Bash", input: { command: "rm -rf build", description: "Clean" } }] },
      { text: "I could not clean it." },
    ],
  },
  prompts: ["clean the build"],
};

Deno.test("session case: expect.hooks names PermissionRequest, PostToolBatch and SessionEnd; expect.files reads the SessionEnd log with matchers", async () => {
  await withTempProject({ ".claude/settings.json": SETTINGS }, async (project) => {
    const result = await runSession(project, {
      name: "whole session",
      session: BASH_SESSION,
      expect: {
        hooks: [
          { event: "PermissionRequest", matcher: "Bash", decision: "deny" },
          { event: "PostToolBatch", decision: "block" },
          { event: "SessionEnd", matcher: "other" },
        ],
        files: {
          "end.log": { contains: '"hook_event_name":"SessionEnd"' },
          "never.log": null,
        },
      },
    }, CLAUDE);
    assertEquals(failureSummary(result), []);
    assertEquals(result.status, "passed", result.error);

    const failing = await runSession(project, {
      name: "wrong reason",
      session: BASH_SESSION,
      expect: { files: { "end.log": { matches: '"reason":"logout"' } } },
    }, CLAUDE);
    assertEquals(failureSummary(failing), [[
      'expect.files["end.log"]',
      'Expected the content of "end.log" to be /"reason":"logout"/, but it does not',
    ]]);
  });
});

const STOP_PROMPT = hooksSettings({
  Stop: [{ hooks: [{ type: "prompt", prompt: "Did the agent run the tests? $ARGUMENTS" }] }],
});

const EVALUATED = {
  model: { turns: [{ text: "all done, tests green" }] },
  prompts: ["finish"],
  evaluator: { turns: [{ text: '{"ok": true}' }] },
};

Deno.test("session case: evaluatorSaw passes on what the prompt hook's evaluator was sent, and fails naming what it was not", async () => {
  await withTempProject({ ".claude/settings.json": STOP_PROMPT }, async (project) => {
    const passing = await runSession(project, {
      name: "evaluated",
      session: EVALUATED,
      expect: {
        evaluatorSaw: [
          "Did the agent run the tests?",
          { contains: "all done, tests green" },
          { matches: '"hook_event_name":\\s*"Stop"' },
        ],
        evaluatorNeverSaw: ["clean the build"],
        modelNeverSaw: ["Did the agent run the tests?"],
      },
    });
    assertEquals(failureSummary(passing), []);

    const failing = await runSession(project, {
      name: "evaluated",
      session: EVALUATED,
      expect: {
        evaluatorSaw: ["Did the agent lint?"],
        evaluatorNeverSaw: [{ contains: "tests green" }],
      },
    });
    assertEquals(failureSummary(failing).map(([path]) => path), [
      "expect.evaluatorSaw[0]",
      "expect.evaluatorNeverSaw[0]",
    ]);
    const [never, saw] = failing.failures;
    assertEquals(
      never!.message,
      'The evaluator of prompt and agent hooks never received "Did the agent lint?"',
    );
    assertEquals(
      saw!.message.startsWith('The evaluator of prompt and agent hooks received "tests green": '),
      true,
      saw!.message,
    );

    const unscripted = await runSession(project, {
      name: "no evaluator",
      session: { model: EVALUATED.model, prompts: EVALUATED.prompts },
      expect: { evaluatorSaw: ["Did the agent run the tests?"] },
    });
    assertEquals(failureSummary(unscripted), [[
      "expect.evaluatorSaw[0]",
      "The evaluator of prompt and agent hooks received nothing, so never " +
      '"Did the agent run the tests?"',
    ]]);
  });
});

Deno.test("event case: a partial Notification is completed as the claude profile sends it", async () => {
  const log = `cat >> "$CLAUDE_PROJECT_DIR/note.log"`;
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      Notification: [{ matcher: "permission_prompt", hooks: [command(log)] }],
    }),
  }, async (project) => {
    const result = await runEvent(project, {
      name: "asked",
      event: "Notification",
      input: { message: "Claude needs your permission to use Bash" },
      expect: { matched: ["note.log"] },
    }, CLAUDE);
    assertEquals(failureSummary(result), []);
    const payload = JSON.parse(await Deno.readTextFile(`${project.dir}/note.log`));
    assertEquals(Object.keys(payload).slice(-3), [
      "hook_event_name",
      "message",
      "notification_type",
    ]);
    assertEquals(
      [payload.message, payload.notification_type],
      ["Claude needs your permission to use Bash", "permission_prompt"],
    );
  });
});
