/**
 * What the real agent sends over real stdio follows what the client advertised at `initialize`
 * (ACP schema v1, `clientCapabilities.session`): the boolean "stop hooks continue" option only with
 * `configOptions.boolean`, notices as `notice` updates only with `notices` (marked agent text
 * otherwise), and the session's title as `session_info_update` for every client. The harness's
 * traffic monitor also fails each test on anything sent that the client did not advertise.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { AcpHarness, isObject, type JsonObject } from "../helpers/acp_harness.ts";
import { withTempProject } from "../helpers/run_cli.ts";
import { NOTICE_META_KEY } from "../../src/acp/session/hook_notices.ts";
import { stopBlockIgnoredNotice } from "../../src/acp/turn/stop_continuation.ts";

const BOOLEAN_OPTIONS = { configOptions: { boolean: {} } };
const NOTICES = { notices: {} };
const CLEARED = "The conversation was cleared: the model starts over from your next prompt " +
  "(this thread still shows what came before)";

/** A Stop hook that blocks once per turn: while `stop_hook_active` is false. */
const STOP_BLOCKS_ONCE = {
  hooks: {
    Stop: [{
      hooks: [{
        type: "command",
        command: `grep -q '"stop_hook_active":false' && ` +
          `printf '%s' '{"decision":"block","reason":"run the tests first"}'; exit 0`,
      }],
    }],
  },
};

interface Agents {
  readonly project: string;
  /** Starts `acp` with `args`, initialized with `session` as the client's session capabilities. */
  start(session: JsonObject | undefined, args?: readonly string[]): Promise<AcpHarness>;
  newSession(agent: AcpHarness): Promise<{ sessionId: string; configOptions: JsonObject[] }>;
}

function withAgents(
  turns: readonly unknown[],
  files: Readonly<Record<string, string>>,
  fn: (agents: Agents) => Promise<void>,
): Promise<void> {
  const projectFiles: Record<string, string> = {
    "home/.keep": "",
    "project/script.json": JSON.stringify({ turns }),
  };
  for (const [path, text] of Object.entries(files)) projectFiles[`project/${path}`] = text;
  return withTempProject(projectFiles, async (dir) => {
    const project = `${dir}/project`;
    const started: AcpHarness[] = [];
    try {
      await fn({
        project,
        async start(session, args = []) {
          const agent = await AcpHarness.start({
            cwd: project,
            home: `${dir}/home`,
            args: ["--model", "scripted:script.json", ...args],
          });
          started.push(agent);
          await agent.call("initialize", {
            protocolVersion: 1,
            clientCapabilities: session === undefined ? {} : { session },
          });
          return agent;
        },
        async newSession(agent) {
          const created = await agent.call("session/new", { cwd: project, mcpServers: [] });
          assert(isObject(created) && typeof created.sessionId === "string");
          const options = Array.isArray(created.configOptions) ? created.configOptions : [];
          // What a new session says once its id is known (its commands, the profile it chose)
          // is written before the answer to any later request: this one, which changes nothing.
          await agent.call("session/set_mode", {
            sessionId: created.sessionId,
            modeId: "auto-approve-reads",
          });
          return { sessionId: created.sessionId, configOptions: options.filter(isObject) };
        },
      });
      // Nothing the monitor saw broke the protocol or went past what the client advertised.
      for (const agent of started) assertEquals((await agent.close()).violations, []);
    } finally {
      for (const agent of started) await agent.close({ allowViolations: true });
    }
  });
}

const prompt = (agent: AcpHarness, sessionId: string, text: string) =>
  agent.call("session/prompt", { sessionId, prompt: [{ type: "text", text }] });

/** Each config option as its id and type, and the current value of all but the model's. */
const shapes = (options: readonly JsonObject[]) =>
  options.map(({ id, type, currentValue }) =>
    id === "model" ? { id, type } : { id, type, currentValue }
  );

const MODE = { id: "mode", type: "select", currentValue: "auto-approve-reads" };
const MODEL = { id: "model", type: "select" };

function ofKind(agent: AcpHarness, sessionId: string, kind: string): JsonObject[] {
  return agent.sessionUpdates(sessionId).filter((update) => update.sessionUpdate === kind);
}

/** The marked agent text a client without notices is told things in. */
function noticeTexts(agent: AcpHarness, sessionId: string, from = 0): unknown[] {
  return agent.sessionUpdates(sessionId).slice(from)
    .filter((update) => update.sessionUpdate === "agent_message_chunk")
    .filter((update) => isObject(update._meta) && update._meta[NOTICE_META_KEY] === true)
    .map((update) => isObject(update.content) ? update.content.text : undefined);
}

Deno.test("the boolean option goes only to a client that advertises boolean options, with the agent's setting as its value", async () => {
  await withAgents([], {}, async ({ start, newSession }) => {
    const plain = await start(undefined);
    assertEquals(shapes((await newSession(plain)).configOptions), [MODE, MODEL]);
    // Config options without booleans are not enough.
    const selectsOnly = await start({ configOptions: {} });
    assertEquals(shapes((await newSession(selectsOnly)).configOptions), [MODE, MODEL]);

    const stopOption = (currentValue: boolean) => ({
      id: "stop_hooks_continue",
      type: "boolean",
      currentValue,
    });
    const llama = await start(BOOLEAN_OPTIONS);
    assertEquals(shapes((await newSession(llama)).configOptions), [MODE, MODEL, stopOption(false)]);
    const claude = await start(BOOLEAN_OPTIONS, ["--compat", "claude"]);
    assertEquals(shapes((await newSession(claude)).configOptions), [MODE, MODEL, stopOption(true)]);
    const turnedOff = await start(BOOLEAN_OPTIONS, [
      "--compat",
      "claude",
      "--no-stop-hooks-continue",
    ]);
    assertEquals(shapes((await newSession(turnedOff)).configOptions), [
      MODE,
      MODEL,
      stopOption(false),
    ]);
  });
});

Deno.test("a notice is a notice update to a client that advertises notices and marked agent text to one that does not, live and on load", async () => {
  await withAgents([], {}, async ({ start, newSession, project }) => {
    const plain = await start(undefined);
    const { sessionId: plainId } = await newSession(plain);
    // What the session start said (the profile chosen) is not this test's.
    const started = plain.sessionUpdates(plainId).length;
    await prompt(plain, plainId, "/clear");
    assertEquals(noticeTexts(plain, plainId, started), [CLEARED]);
    assertEquals(ofKind(plain, plainId, "notice"), []);

    const noticing = await start(NOTICES);
    const { sessionId } = await newSession(noticing);
    const startNotices = ofKind(noticing, sessionId, "notice").length;
    await prompt(noticing, sessionId, "/clear");
    assertEquals(ofKind(noticing, sessionId, "notice").slice(startNotices), [
      { sessionUpdate: "notice", severity: "info", title: CLEARED },
    ]);
    assertEquals(ofKind(noticing, sessionId, "agent_message_chunk"), []);

    // A notice is no part of the history: a load replays it to a client without notices only.
    await noticing.close();
    const again = await start(NOTICES);
    await again.call("session/load", { sessionId, cwd: project, mcpServers: [] });
    assertEquals(ofKind(again, sessionId, "notice"), []);
    assertEquals(ofKind(again, sessionId, "agent_message_chunk"), []);
    await again.close();
    const plainAgain = await start(undefined);
    await plainAgain.call("session/load", { sessionId, cwd: project, mcpServers: [] });
    const replayed = noticeTexts(plainAgain, sessionId);
    assertEquals(replayed.at(-1), CLEARED, JSON.stringify(replayed));
  });
});

Deno.test("the first prompt's first line is sent as the session's title, once, and again after a load or a resume", async () => {
  await withAgents(
    [{ text: "one" }, { text: "two" }],
    {},
    async ({ start, newSession, project }) => {
      const title = { sessionUpdate: "session_info_update", title: "Fix the failing test" };
      const agent = await start(undefined);
      const { sessionId } = await newSession(agent);
      assertEquals(ofKind(agent, sessionId, "session_info_update"), [], "no title before a prompt");
      await prompt(agent, sessionId, "\n  Fix the failing test  \nin tests/");
      await prompt(agent, sessionId, "And the other one");
      assertEquals(ofKind(agent, sessionId, "session_info_update"), [title]);
      const listed = await agent.call("session/list", { cwd: project });
      assert(isObject(listed) && Array.isArray(listed.sessions));
      assertEquals(listed.sessions.map((s) => isObject(s) ? s.title : undefined), [title.title]);
      await agent.close();

      for (const method of ["session/load", "session/resume"]) {
        const later = await start(undefined);
        await later.call(method, { sessionId, cwd: project, mcpServers: [] });
        await later.waitFor(() => ofKind(later, sessionId, "session_info_update").length > 0, {
          what: `the title after ${method}`,
        });
        assertEquals(ofKind(later, sessionId, "session_info_update"), [title], method);
        await later.close();
      }
    },
  );
});

Deno.test("a Stop block a session ignores is said in one line naming the flag, and the option's name to a client that shows it", async () => {
  const files = { ".claude/settings.json": JSON.stringify(STOP_BLOCKS_ONCE) };
  const turns = [{ text: "done" }, { text: "tests pass" }];
  await withAgents(turns, files, async ({ start, newSession }) => {
    const plain = await start(undefined);
    const { sessionId: plainId } = await newSession(plain);
    const started = plain.sessionUpdates(plainId).length;
    await prompt(plain, plainId, "fix it");
    // The reply, then the line in a paragraph of its own.
    const said = plain.sessionUpdates(plainId).slice(started)
      .filter((update) => update.sessionUpdate === "agent_message_chunk")
      .map((update) => isObject(update.content) ? update.content.text : undefined);
    assertEquals(said, ["done", `\n\n${stopBlockIgnoredNotice(undefined)}`]);
    assertEquals(noticeTexts(plain, plainId, started), [
      `\n\n${stopBlockIgnoredNotice(undefined)}`,
    ]);

    const both = await start({ ...BOOLEAN_OPTIONS, ...NOTICES });
    const { sessionId } = await newSession(both);
    const startNotices = ofKind(both, sessionId, "notice").length;
    await prompt(both, sessionId, "fix it");
    assertEquals(ofKind(both, sessionId, "notice").slice(startNotices), [{
      sessionUpdate: "notice",
      severity: "warning",
      title: stopBlockIgnoredNotice("Stop hooks continue the turn"),
    }]);
  });
});

Deno.test("a claude-profile session goes on after a Stop block with nothing set, and says nothing of it being ignored", async () => {
  const files = { ".claude/settings.json": JSON.stringify(STOP_BLOCKS_ONCE) };
  const turns = [{ text: "done" }, { text: "tests pass" }];
  await withAgents(turns, files, async ({ start, newSession }) => {
    const agent = await start(undefined, ["--compat", "claude"]);
    const { sessionId } = await newSession(agent);
    const answer = await prompt(agent, sessionId, "fix it");
    assert(isObject(answer));
    assertEquals(answer.stopReason, "end_turn");
    const notices = noticeTexts(agent, sessionId);
    assert(!notices.includes(stopBlockIgnoredNotice(undefined)), JSON.stringify(notices));
    // The model was asked again with the hook's reason, and its second answer ended the turn.
    assert(agent.agentText(sessionId).endsWith("tests pass"), agent.agentText(sessionId));
  });
});
