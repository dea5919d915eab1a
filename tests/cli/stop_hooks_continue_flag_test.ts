/**
 * `acp --[no-]stop-hooks-continue`, `LLAMA_AGENT_STOP_HOOKS_CONTINUE` and `"stopHooksContinue"`:
 * parsed as every acp setting is (a flag wins over its variable, which wins over the file), and
 * shown by `--print-config` with where it came from; unset, each session decides by its profile.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { runCli, withTempProject } from "../helpers/run_cli.ts";
import type { CommandSpec } from "../../src/cli/command_spec.ts";
import { parseCommandLine, renderHelp } from "../../src/cli/parse_command_line.ts";
import { STOP_HOOKS_CONTINUE_FLAG } from "../../src/cli/options/stop_hooks_continue_flag.ts";

const CONFIG = ".config/llama-agent/config.json";

const SPEC: CommandSpec = {
  path: ["acp"],
  summary: "test",
  flags: [STOP_HOOKS_CONTINUE_FLAG, { name: "verbose", type: "boolean", description: "More" }],
  positionals: [],
};

Deno.test("a negatable flag is true as --name and false as --no-name; the last one given wins", () => {
  const flagOf = (args: string[]) => {
    const parsed = parseCommandLine(SPEC, args);
    assert(parsed.ok, parsed.ok ? "" : parsed.error);
    return parsed.value.flags["stop-hooks-continue"];
  };
  assertEquals(flagOf([]), undefined);
  assertEquals(flagOf(["--stop-hooks-continue"]), true);
  assertEquals(flagOf(["--no-stop-hooks-continue"]), false);
  assertEquals(flagOf(["--stop-hooks-continue", "--no-stop-hooks-continue"]), false);
});

Deno.test("only a negatable flag has a --no- form, and it takes no value", () => {
  const verbose = parseCommandLine(SPEC, ["--no-verbose"]);
  assertEquals(verbose.ok, false);
  assertStringIncludes(verbose.ok ? "" : verbose.error, 'Unknown flag "--no-verbose"');
  const valued = parseCommandLine(SPEC, ["--no-stop-hooks-continue=1"]);
  assertEquals(
    valued.ok ? "" : valued.error,
    'Flag "--no-stop-hooks-continue" takes no value: run "llama-agent acp --help" for usage',
  );
  const typo = parseCommandLine(SPEC, ["--no-stop-hook-continue"]);
  assertStringIncludes(typo.ok ? "" : typo.error, 'did you mean "--no-stop-hooks-continue"?');
});

Deno.test("help shows a negatable flag as --[no-]name", () => {
  const help = renderHelp(SPEC);
  assertStringIncludes(
    help,
    "  --[no-]stop-hooks-continue  When a Stop hook blocks the end of a turn",
  );
  assertStringIncludes(help, "(default: on in claude-profile sessions, else off)");
});

/** The printed line of the setting: its value and its source. */
function printed(stdout: string): { value: string; source: string } {
  const line = stdout.split("\n").find((l) => l.startsWith("stop-hooks-continue "));
  assert(line !== undefined, `no stop-hooks-continue line in:\n${stdout}`);
  const [value, source] = line.slice("stop-hooks-continue".length).trim().split(/\s{2,}/);
  return { value: value!, source: source! };
}

Deno.test("--print-config shows stop-hooks-continue from the flag, its --no- form, the variable, the file or the default", async () => {
  await withTempProject({ "home/.keep": "", "work/.keep": "" }, async (root) => {
    const home = `${root}/home`;
    const work = `${root}/work`;
    const print = async (args: string[], env: Record<string, string> = {}) => {
      const result = await runCli(["acp", "--print-config", ...args], { cwd: work, home, env });
      assertEquals(result.code, 0, result.stderr);
      return printed(result.stdout);
    };
    assertEquals(await print([]), {
      value: "on in claude-profile sessions, else off",
      source: "default",
    });
    await Deno.mkdir(`${home}/.config/llama-agent`, { recursive: true });
    await Deno.writeTextFile(`${home}/${CONFIG}`, '{\n  "stopHooksContinue": true\n}\n');
    assertEquals(await print([]), { value: "true", source: `file ${home}/${CONFIG}:2` });
    const off = { LLAMA_AGENT_STOP_HOOKS_CONTINUE: "0" };
    assertEquals(await print([], off), {
      value: "false",
      source: "env LLAMA_AGENT_STOP_HOOKS_CONTINUE",
    });
    assertEquals(await print(["--stop-hooks-continue"], off), { value: "true", source: "flag" });
    assertEquals(await print(["--no-stop-hooks-continue"]), { value: "false", source: "flag" });
  });
});

Deno.test("a stop-hooks-continue that is no boolean stops acp with exit 2, naming the variable or the file's line", async () => {
  await withTempProject({ "home/.keep": "", "work/.keep": "" }, async (root) => {
    const home = `${root}/home`;
    const work = `${root}/work`;
    const fromEnv = await runCli(["acp", "--print-config"], {
      cwd: work,
      home,
      env: { LLAMA_AGENT_STOP_HOOKS_CONTINUE: "yes" },
    });
    assertEquals(fromEnv.code, 2);
    assertStringIncludes(
      fromEnv.stderr,
      'LLAMA_AGENT_STOP_HOOKS_CONTINUE must be "true" or "false" (or 1 or 0), got "yes"',
    );
    await Deno.mkdir(`${home}/.config/llama-agent`, { recursive: true });
    await Deno.writeTextFile(`${home}/${CONFIG}`, '{\n  "stopHooksContinue": "on"\n}\n');
    const fromFile = await runCli(["acp", "--print-config"], { cwd: work, home });
    assertEquals(fromFile.code, 2);
    assertStringIncludes(fromFile.stderr, `${home}/${CONFIG}:2: "stopHooksContinue"`);
  });
});
