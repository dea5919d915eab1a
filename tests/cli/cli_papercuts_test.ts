/**
 * The front door's small things: a typo gets a "did you mean", `help <command>` is that command's
 * help, every flag with a fixed set of values lists them in --help, and `hooks run --exit-code`
 * lets a script see a block. In-process through `runCli` where no hook runs; through the real
 * launcher where one does.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { runCli as runLauncher, withTempProject } from "../helpers/run_cli.ts";
import { runCliCapturingOutput as run } from "../../src/cli/run_cli.ts";
import { COMMAND_TREE, type GroupNode, type LeafNode } from "../../src/cli/command_tree.ts";
import { describeFlag, renderHelp } from "../../src/cli/parse_command_line.ts";
// Commands' --help loads their modules, and with them the spawn path, which opens the C library
// for the rest of the process: loaded here, it is not counted as a test's open resource.
import "../../src/os/process/spawn_path.ts";

Deno.test("a misspelt command is a usage error that names the command it was probably", async () => {
  const top = await run(["hoks", "list"]);
  assertEquals(top.code, 2);
  assertEquals(top.stdout, "");
  assertEquals(
    top.stderr,
    'Unknown command "hoks" for "llama-agent": did you mean "llama-agent hooks"? ' +
      '(run "llama-agent --help" for the commands)\n',
  );
  const nested = await run(["hooks", "lsit"]);
  assertEquals(nested.code, 2);
  assertStringIncludes(nested.stderr, 'did you mean "llama-agent hooks list"?');
  const far = await run(["frobnicate"]);
  assert(!far.stderr.includes("did you mean"), far.stderr);
});

Deno.test("a misspelt flag or value is a usage error that names the one it was probably", async () => {
  const flag = await run(["hooks", "lint", "--fromat", "json"]);
  assertEquals(flag.code, 2);
  assertEquals(
    flag.stderr,
    'Unknown flag "--fromat" for "llama-agent hooks lint": did you mean "--format"? ' +
      '(run "llama-agent hooks lint --help" for usage)\n',
  );
  const groupFlag = await run(["--verison"]);
  assertEquals(groupFlag.code, 2);
  assertStringIncludes(groupFlag.stderr, 'did you mean "--version"?');
  const value = await run(["hooks", "test", "--reporter", "jnuit"]);
  assertEquals(value.code, 2);
  assertStringIncludes(
    value.stderr,
    'Flag "--reporter" does not accept "jnuit": did you mean "junit"? use one of "default"',
  );
  const unrelated = await run(["hooks", "list", "--frob"]);
  assert(!unrelated.stderr.includes("did you mean"), unrelated.stderr);
});

Deno.test('"help <command>" prints what "<command> --help" prints, at every depth', async () => {
  for (const path of [["acp"], ["hooks"], ["hooks", "test"]]) {
    const viaHelp = await run(["help", ...path]);
    const viaFlag = await run([...path, "--help"]);
    assertEquals(viaHelp.code, 0, viaHelp.stderr);
    assertEquals(viaHelp.stdout, viaFlag.stdout);
    assertStringIncludes(viaHelp.stdout, `Usage: llama-agent ${path.join(" ")}`);
  }
  assertEquals(
    (await run(["hooks", "help", "run"])).stdout,
    (await run(["hooks", "run", "-h"])).stdout,
  );
  const unknown = await run(["help", "hoks"]);
  assertEquals(unknown.code, 2);
  assertStringIncludes(unknown.stderr, 'did you mean "llama-agent hooks"?');
});

Deno.test("every flag with a fixed set of values lists each of them in its command's help", async () => {
  const leaves: { path: string; node: LeafNode }[] = [];
  const walk = (group: GroupNode, path: string) => {
    for (const [word, node] of Object.entries(group.children)) {
      if (node.kind === "group") walk(node, `${path} ${word}`);
      else leaves.push({ path: `${path} ${word}`, node });
    }
  };
  walk(COMMAND_TREE, "llama-agent");
  let checked = 0;
  for (const { path, node } of leaves) {
    const { spec } = await node.load();
    const help = renderHelp(spec);
    for (const flag of spec.flags.filter((f) => f.choices !== undefined)) {
      const row = help.split("\n").find((line) => line.trimStart().startsWith(`--${flag.name} `));
      assert(row !== undefined, `${path} --${flag.name} has no help row`);
      for (const choice of flag.choices!) {
        assert(
          row.split(/[^\w-]+/).includes(choice),
          `${path} --help: --${flag.name} does not list "${choice}": ${row}`,
        );
      }
      checked++;
    }
  }
  assert(checked >= 6, `only ${checked} flags with choices were found`);
});

Deno.test("a flag's description that already names every value is left as written", () => {
  assertEquals(
    describeFlag({
      name: "f",
      type: "string",
      description: "a, b, or c",
      choices: ["a", "b", "c"],
    }),
    "a, b, or c",
  );
  assertEquals(
    describeFlag({
      name: "gpu",
      type: "string",
      description: "Use a GPU",
      choices: ["auto", "off"],
    }),
    "Use a GPU; one of: auto, off",
  );
});

const DENY_SETTINGS = `{
  "hooks": {
    "PreToolUse": [
      { "matcher": "shell", "hooks": [{ "type": "command", "command": "./deny_rm.sh" }] }
    ]
  }
}
`;

Deno.test("hooks run --exit-code exits 1 when the decision blocks, 0 when the call may go ahead", async () => {
  await withTempProject({
    ".claude/settings.json": DENY_SETTINGS,
    "deny_rm.sh": {
      text: '#!/bin/sh\nif grep -q "rm -rf" ; then echo "no rm" >&2; exit 2; fi\nexit 0\n',
      mode: 0o755,
    },
  }, async (dir) => {
    const fire = (command: string, extra: string[]) =>
      runLauncher([
        "hooks",
        "run",
        "PreToolUse",
        ...extra,
        "--input",
        JSON.stringify({ tool_name: "shell", tool_input: { command } }),
      ], { cwd: dir, home: dir });
    const denied = await fire("rm -rf /", ["--exit-code"]);
    assertEquals(denied.code, 1, denied.stderr);
    assertStringIncludes(denied.stdout, "Decision: deny");
    const allowed = await fire("ls", ["--exit-code"]);
    assertEquals(allowed.code, 0, allowed.stderr);
    const withoutFlag = await fire("rm -rf /", []);
    assertEquals(withoutFlag.code, 0, withoutFlag.stderr);
    const json = await fire("rm -rf /", ["--exit-code", "--json"]);
    assertEquals(json.code, 1, json.stderr);
    assertEquals(JSON.parse(json.stdout).decision.verdict.kind, "block");
  });
});
