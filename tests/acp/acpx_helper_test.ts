import { assert, assertEquals, AssertionError, assertStringIncludes } from "../helpers/assert.ts";
import {
  acpxAgentRequests,
  acpxAgentText,
  type AcpxRun,
  acpxStopReason,
  acpxToolCallUpdates,
  assertNoAcpxProtocolErrors,
  describeAcpxRun,
  findNode,
  parseTranscript,
  quoteForAcpx,
  runAcpx,
} from "../helpers/acpx.ts";
import { isObject } from "../helpers/acp_harness.ts";
import { REPO_ROOT, withTempProject } from "../helpers/run_cli.ts";

const DENO = `${REPO_ROOT}/node_modules/deno/deno`;
const FAKE_AGENT = `${REPO_ROOT}/tests/acp/fixtures/fake_agent.ts`;
const FAKE_AGENT_COMMAND = [DENO, "run", "--quiet", "--no-config", "--allow-all", FAKE_AGENT];
const ignore = findNode() === undefined;

interface Project {
  readonly project: string;
  readonly home: string;
}

function withProject(fn: (project: Project) => Promise<void>): Promise<void> {
  return withTempProject(
    { "home/.keep": "", "project/hello.txt": "hello file\n" },
    (dir) => fn({ project: `${dir}/project`, home: `${dir}/home` }),
  );
}

function fake(
  { project, home }: Project,
  scenario: string,
  flags: readonly string[],
  prompt = "say hi",
  extraArgs: readonly string[] = [],
): Promise<AcpxRun> {
  return runAcpx({
    agentCommand: [...FAKE_AGENT_COMMAND, ...extraArgs],
    cwd: project,
    home,
    prompt,
    flags,
    env: { FAKE_AGENT_SCENARIO: scenario },
    timeoutMs: 60_000,
  });
}

function assertThrows(fn: () => void): AssertionError {
  try {
    fn();
  } catch (error) {
    assert(error instanceof AssertionError, `Expected an AssertionError, got ${error}`);
    return error;
  }
  throw new AssertionError("Expected the call to fail");
}

Deno.test({
  name: "acpx runs a prompt end to end: the text, the stopReason, exit 0",
  ignore,
  fn: () =>
    withProject(async (project) => {
      const run = await fake(project, "", ["--approve-all"]);
      assertEquals(run.code, 0, describeAcpxRun(run));
      assertNoAcpxProtocolErrors(run);
      assertEquals(acpxAgentText(run), "echo: say hi");
      assertStringIncludes(run.agentStderr, "fake_agent: received session/prompt");
      assertEquals(acpxStopReason(run), "end_turn");
      assertEquals(run.timedOut, false);
      assertEquals(
        run.messages.map(({ from, message }) =>
          `${from} ${String(message.method ?? `#${String(message.id)}`)}`
        ),
        [
          "client initialize",
          "agent #0",
          "client session/new",
          "agent #1",
          "client session/prompt",
          "agent session/update",
          "agent #2",
        ],
      );
      const sessionNew = run.messages[2]?.message;
      assert(isObject(sessionNew) && isObject(sessionNew.params));
      assertEquals(sessionNew.params.cwd, project.project);
      // acpx's own state lives in its own temporary HOME, not in the agent's.
      const agentHome = [...Deno.readDirSync(project.home)].map((entry) => entry.name);
      assert(!agentHome.includes(".acpx"), `acpx wrote to the agent's HOME: ${agentHome}`);
    }),
});

Deno.test({
  name: "the agent gets its argv intact and its own HOME",
  ignore,
  fn: () =>
    withProject(async (project) => {
      const args = ["a b", "it's", 'say "hi"', "back\\slash", "$HOME", ""];
      const run = await fake(project, "whoami", [], "-starts with a dash", args);
      assertEquals(run.code, 0, describeAcpxRun(run));
      assertEquals(
        acpxAgentText(run),
        `echo: -starts with a dash\nargs: ${JSON.stringify(args)}\nhome: ${project.home}`,
      );
    }),
});

Deno.test({
  name: "permissions: --approve-all allows (exit 0), --deny-all rejects (exit 5)",
  ignore,
  fn: () =>
    withProject(async (project) => {
      const approved = await fake(project, "permission", ["--approve-all"]);
      assertEquals(approved.code, 0, describeAcpxRun(approved));
      assertNoAcpxProtocolErrors(approved);
      assertStringIncludes(acpxAgentText(approved), "permission: allow_once");
      assertEquals(acpxAgentRequests(approved, "session/request_permission").length, 1);
      assertEquals(
        acpxToolCallUpdates(approved).map((update) => `${update.sessionUpdate} ${update.status}`),
        ["tool_call pending", "tool_call_update in_progress", "tool_call_update completed"],
      );

      const denied = await fake(project, "permission", ["--deny-all"]);
      assertEquals(denied.code, 5, describeAcpxRun(denied));
      assertNoAcpxProtocolErrors(denied);
      assertStringIncludes(acpxAgentText(denied), "permission: reject_once");
      assertEquals(acpxStopReason(denied), "end_turn");
      assertEquals(
        acpxToolCallUpdates(denied).map((update) => `${update.sessionUpdate} ${update.status}`),
        ["tool_call pending", "tool_call_update failed"],
      );
    }),
});

Deno.test({
  name: "fs and terminal requests are served by acpx unless --no-fs / --no-terminal",
  ignore,
  fn: () =>
    withProject(async (project) => {
      const served = await fake(project, "fs,terminal", ["--approve-all"]);
      assertEquals(served.code, 0, describeAcpxRun(served));
      assertNoAcpxProtocolErrors(served);
      assertStringIncludes(acpxAgentText(served), 'fs: {"content":"hello file\\n"}');
      assertStringIncludes(acpxAgentText(served), 'terminal: "from-terminal\\n"');
      assertEquals(
        acpxAgentRequests(served).map((request) => request.method),
        [
          "fs/read_text_file",
          "terminal/create",
          "terminal/wait_for_exit",
          "terminal/output",
          "terminal/release",
        ],
      );

      const withheld = await fake(project, "fs,terminal", ["--no-fs", "--no-terminal"]);
      assertEquals(withheld.code, 0, describeAcpxRun(withheld));
      const initialize = withheld.messages[0]?.message;
      assert(isObject(initialize) && isObject(initialize.params));
      assertEquals(initialize.params.clientCapabilities, {
        fs: { readTextFile: false, writeTextFile: false },
        terminal: false,
      });
      assertStringIncludes(
        acpxAgentText(withheld),
        "fs: not advertised\nterminal: not advertised",
      );
    }),
});

Deno.test({
  name: "assertNoAcpxProtocolErrors catches an invalid notification acpx only logs",
  ignore,
  fn: () =>
    withProject(async (project) => {
      const run = await fake(project, "bad_update", ["--approve-all"]);
      assertEquals(run.code, 0, "acpx does not fail on an invalid notification");
      assertStringIncludes(run.stderr, "Error handling notification");
      const error = assertThrows(() => assertNoAcpxProtocolErrors(run));
      assertStringIncludes(error.message, 'acpx logged "Error handling notification"');
      assertStringIncludes(
        error.message,
        '[schema] Missing required property "text" at /params/update/content',
      );
    }),
});

Deno.test({
  name: "assertNoAcpxProtocolErrors catches a stray stdout line and an unannounced update",
  ignore,
  fn: () =>
    withProject(async (project) => {
      const run = await fake(project, "stray_stdout,unannounced_update", ["--approve-all"]);
      assertEquals(run.code, 0);
      const error = assertThrows(() => assertNoAcpxProtocolErrors(run));
      assertStringIncludes(error.message, 'acpx logged "Failed to parse JSON message"');
      assertStringIncludes(error.message, '[ordering] tool_call_update for toolCallId "ghost"');
    }),
});

Deno.test({
  name: "an agent that cannot start: exit 1 and acpx's own error line",
  ignore,
  fn: () =>
    withProject(async ({ project, home }) => {
      const run = await runAcpx({
        agentCommand: [`${project}/no-such-agent`],
        cwd: project,
        home,
        prompt: "hi",
      });
      assertEquals(run.code, 1, describeAcpxRun(run));
      const last = run.messages.at(-1);
      assertEquals(last?.from, "acpx");
      assert(last !== undefined && isObject(last.message.error));
      // `env` starts, then fails to run the agent: acpx sees it exit during startup.
      assert(isObject(last.message.error.data));
      assertEquals(last.message.error.data.acpxCode, "RUNTIME");
      assertEquals(last.message.error.data.detailCode, "AGENT_STARTUP_FAILED");
      assertStringIncludes(run.agentStderr, "no-such-agent");
      assertNoAcpxProtocolErrors(run);
    }),
});

Deno.test("quoteForAcpx leaves plain words alone and single-quotes the rest", () => {
  assertEquals(quoteForAcpx(["/bin/llama-agent", "acp", "--x=1"]), "/bin/llama-agent acp --x=1");
  assertEquals(quoteForAcpx(["a b", "it's", ""]), `'a b' 'it'\\''s' ''`);
});

Deno.test("parseTranscript tells acpx's own errors and non-JSON lines apart", () => {
  const parsed = parseTranscript(
    [
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}',
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"x","data":{"acpxCode":"RUNTIME"}}}',
      "not json",
      "",
    ].join("\n"),
  );
  assertEquals(parsed.messages.map(({ from }) => from), ["client", "acpx"]);
  assertEquals(parsed.unparsedLines, ["not json"]);
  assertEquals(parsed.violations, []);
});
