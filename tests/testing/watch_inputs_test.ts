import { assertEquals } from "../helpers/assert.ts";
import type { CommandHandlerConfig } from "../../src/hooks/handler_config.ts";
import {
  affectedScenarios,
  collectWatchInputs,
  hookScripts,
  type WatchInputs,
} from "../../src/testing/watch/watch_inputs.ts";
import { withFiles } from "./scenario_files.ts";

const command = (text: string, args?: string[]): CommandHandlerConfig => ({
  type: "command",
  command: text,
  ...(args === undefined ? {} : { args }),
});

const scriptsOf = (text: string, args?: string[]) => hookScripts(command(text, args), "/p").sort();

Deno.test("a hook's scripts are the files inside the project its commands run", () => {
  assertEquals(scriptsOf("bash .claude/hooks/guard.sh"), ["/p/.claude/hooks/guard.sh"]);
  assertEquals(scriptsOf('"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.py'), ["/p/.claude/hooks/x.py"]);
  assertEquals(scriptsOf("${CLAUDE_PROJECT_DIR}/hooks/x.sh --fast"), ["/p/hooks/x.sh"]);
  assertEquals(scriptsOf("./x.sh"), ["/p/x.sh"]);
  assertEquals(scriptsOf("python3 -u scripts/check.py --strict"), ["/p/scripts/check.py"]);
  assertEquals(scriptsOf("FOO=1 exec node tools/a.js"), ["/p/tools/a.js"]);
  assertEquals(scriptsOf("/usr/bin/env python3 b.py"), ["/p/b.py"]);
  assertEquals(scriptsOf("deno run -A tools/c.ts"), ["/p/tools/c.ts"]);
  assertEquals(scriptsOf("jq -r .tool_name | ./a.sh; true && bash b.sh"), [
    "/p/a.sh",
    "/p/b.sh",
  ]);
  assertEquals(scriptsOf("node", ["${CLAUDE_PROJECT_DIR}/hooks/d.js"]), ["/p/hooks/d.js"]);
  assertEquals(scriptsOf("./e.sh", ["x"]), ["/p/e.sh"]);
});

Deno.test("words that name no project script are not a hook's scripts", () => {
  assertEquals(scriptsOf("jq -r .tool_input.command"), []);
  assertEquals(scriptsOf("echo hi > .claude/log.txt"), []);
  assertEquals(scriptsOf("bash -c 'exit 2'"), []);
  assertEquals(scriptsOf("python3 -c 'print(1)'"), []);
  assertEquals(scriptsOf("/usr/local/bin/guard --strict"), []);
  assertEquals(scriptsOf("bash ../outside.sh"), []);
  assertEquals(scriptsOf("bash $SCRIPT"), []);
  assertEquals(scriptsOf("${CLAUDE_PLUGIN_ROOT}/hooks/x.sh"), []);
  assertEquals(scriptsOf("bash ~/.claude/hooks/x.sh"), []);
});

const SETTINGS = {
  hooks: {
    PreToolUse: [{
      matcher: "shell",
      hooks: [{ type: "command", command: "bash .claude/hooks/guard.sh" }],
    }],
    PostToolUse: [{
      matcher: "fs_write|fs_edit",
      hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/format.sh' }],
    }],
    Stop: [{ hooks: [{ type: "command", command: "python3 scripts/stop.py" }] }],
  },
};

const eventCase = (name: string, event: string, input: object, extra: object = {}) => ({
  name,
  event,
  input,
  expect: { errors: 0 },
  ...extra,
});

const sessionCase = {
  name: "a session",
  session: { model: { turns: [{ text: "done" }] }, prompts: ["hi"] },
  expect: { stopReason: "end_turn" },
};

/** Two event scenarios on different hooks, one session scenario, one with an override. */
const PROJECT: Record<string, string> = {
  ".claude/settings.json": JSON.stringify(SETTINGS),
  ".claude/hooks/guard.sh": "exit 0\n",
  ".claude/hooks/format.sh": "exit 0\n",
  "scripts/stop.py": "pass\n",
  "other/settings.json": JSON.stringify({
    hooks: { Stop: [{ hooks: [{ type: "command", command: "./other/only.sh" }] }] },
  }),
  "other/only.sh": "exit 0\n",
  "fixtures/home/.claude/settings.json": "{}",
  "README.md": "unrelated\n",
  ".claude/hooks-tests/guard.test.jsonc": JSON.stringify({
    cases: [eventCase("ls", "PreToolUse", { tool_name: "shell", tool_input: { command: "ls" } })],
  }),
  ".claude/hooks-tests/format.test.jsonc": JSON.stringify({
    cases: [eventCase("w", "PostToolUse", { tool_name: "fs_write", tool_input: {} })],
  }),
  ".claude/hooks-tests/session.test.jsonc": JSON.stringify({ cases: [sessionCase] }),
  ".claude/hooks-tests/override.test.jsonc": JSON.stringify({
    home: "../../fixtures/home",
    cases: [eventCase("stops", "Stop", {}, { settings: "../../other/settings.json" })],
  }),
};

const NAMES = ["format", "guard", "override", "session"] as const;

async function inputsOf(dir: string): Promise<WatchInputs> {
  const tests = `${dir}/.claude/hooks-tests`;
  return await collectWatchInputs({
    projectDir: dir,
    files: NAMES.map((name) => `${tests}/${name}.test.jsonc`),
    scenarioDirs: [tests],
  });
}

/** The scenario names a change of `paths` (relative to the project) reruns. */
function rerun(inputs: WatchInputs, dir: string, ...paths: string[]): string[] {
  const affected = affectedScenarios(inputs, paths.map((path) => `${dir}/${path}`));
  return affected.files.map((file) => file.slice(file.lastIndexOf("/") + 1, -".test.jsonc".length));
}

Deno.test("a settings file of the chain reruns every scenario that runs against it", async () => {
  await withFiles(PROJECT, async (dir) => {
    const inputs = await inputsOf(dir);
    assertEquals(rerun(inputs, dir, ".claude/settings.json"), ["format", "guard", "session"]);
    assertEquals(rerun(inputs, dir, ".claude/settings.local.json"), [
      "format",
      "guard",
      "session",
    ]);
    assertEquals(rerun(inputs, dir, "other/settings.json"), ["override"]);
  });
});

Deno.test("a hook script reruns only the scenarios whose cases can fire its hook", async () => {
  await withFiles(PROJECT, async (dir) => {
    const inputs = await inputsOf(dir);
    assertEquals(rerun(inputs, dir, ".claude/hooks/guard.sh"), ["guard", "session"]);
    assertEquals(rerun(inputs, dir, ".claude/hooks/format.sh"), ["format", "session"]);
    assertEquals(rerun(inputs, dir, "scripts/stop.py"), ["session"]);
    // The override replaces the chain: its own script counts, the project's do not.
    assertEquals(rerun(inputs, dir, "other/only.sh"), ["override"]);
  });
});

Deno.test("a scenario file reruns itself, and a file nothing names reruns nothing", async () => {
  await withFiles(PROJECT, async (dir) => {
    const inputs = await inputsOf(dir);
    assertEquals(rerun(inputs, dir, ".claude/hooks-tests/guard.test.jsonc"), ["guard"]);
    assertEquals(rerun(inputs, dir, "README.md", ".claude/hooks/unused.sh", "docs"), []);
    assertEquals(affectedScenarios(inputs, [`${dir}/README.md`]).rediscover, false);
  });
});

Deno.test("a change under a fixture home reruns the scenarios that use it", async () => {
  await withFiles(PROJECT, async (dir) => {
    const inputs = await inputsOf(dir);
    assertEquals(rerun(inputs, dir, "fixtures/home/.bashrc"), ["override"]);
    assertEquals(rerun(inputs, dir, "fixtures"), ["override"]);
  });
});

Deno.test("a new file in the scenario directory asks for the scenarios to be found again", async () => {
  await withFiles(PROJECT, async (dir) => {
    const inputs = await inputsOf(dir);
    const added = affectedScenarios(inputs, [`${dir}/.claude/hooks-tests/new.test.jsonc`]);
    assertEquals(added, { files: [], rediscover: true });
  });
});

Deno.test("creating the directory of a missing settings file reruns what reads it", async () => {
  await withFiles({
    "tests/stop.test.jsonc": JSON.stringify({ cases: [eventCase("s", "Stop", {})] }),
  }, async (dir) => {
    const scenario = `${dir}/tests/stop.test.jsonc`;
    const inputs = await collectWatchInputs({
      projectDir: dir,
      files: [scenario],
      scenarioDirs: [],
    });
    assertEquals(affectedScenarios(inputs, [`${dir}/.claude`]).files, [scenario]);
    assertEquals(affectedScenarios(inputs, [`${dir}/.github`]).files, []);
  });
});

Deno.test("a scenario file that does not load depends on itself and the project's chain", async () => {
  await withFiles({
    ".claude/settings.json": "{}",
    "t/broken.test.jsonc": "{ not jsonc",
    "t/bad_case.test.jsonc": JSON.stringify({
      settings: "../other.json",
      cases: [{ name: "no event", expect: {} }],
    }),
    "other.json": "{}",
  }, async (dir) => {
    const broken = `${dir}/t/broken.test.jsonc`;
    const badCase = `${dir}/t/bad_case.test.jsonc`;
    const inputs = await collectWatchInputs({
      projectDir: dir,
      files: [broken, badCase],
      scenarioDirs: [],
    });
    assertEquals(affectedScenarios(inputs, [broken]).files, [broken]);
    assertEquals(affectedScenarios(inputs, [`${dir}/.claude/settings.json`]).files, [
      badCase,
      broken,
    ]);
  });
});
