/**
 * The `--cwd` examples in the help of `hooks list`, `hooks lint` and `hooks init` run as printed. llama-agent may read only the
 * directory it starts in and `$HOME`, so an example that points beside the launch directory
 * (`../other-project`) fails for anyone whose projects are not both under `$HOME`.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { runCli, withTempProject } from "../helpers/run_cli.ts";
import type { CliCommand } from "../../src/cli/command_spec.ts";
import { hooksInitCommand } from "../../src/cli/commands/hooks_init.ts";
import { hooksLintCommand } from "../../src/cli/commands/hooks_lint.ts";
import { hooksListCommand } from "../../src/cli/commands/hooks_list.ts";
import { resolve } from "node:path";

const SETTINGS = JSON.stringify({
  hooks: { Stop: [{ hooks: [{ type: "command", command: "true" }] }] },
});

/** An example's words up to its comment, without the program name. */
function argsOf(example: string): string[] {
  const words = example.replace(/\s+#.*$/, "").split(/\s+/);
  assertEquals(words[0], "llama-agent", example);
  return words.slice(1);
}

/** Each command, and what its output shows once it has read the project's settings. */
const COMMANDS: readonly [CliCommand, string][] = [
  [hooksListCommand, "Stop"],
  [hooksLintCommand, '"cwd": "'],
  [hooksInitCommand, "from the 1 hook(s) that fire here"],
];

for (const [command, shown] of COMMANDS) {
  const name = command.spec.path.join(" ");
  Deno.test(`every --cwd example of ${name} runs from a launch directory outside $HOME`, async () => {
    await checkCwdExamples(command, shown);
  });
}

async function checkCwdExamples(command: CliCommand, shown: string): Promise<void> {
  const name = command.spec.path.join(" ");
  const examples = (command.spec.examples ?? []).filter((e) => e.includes("--cwd "));
  assert(examples.length > 0, `${name} --help shows no --cwd example`);
  for (const example of examples) {
    const args = argsOf(example);
    const dir = args[args.indexOf("--cwd") + 1]!;
    await withTempProject({ "home/.keep": "", "work/.keep": "" }, async (root) => {
      const launch = `${root}/work`;
      const project = resolve(launch, dir);
      await Deno.mkdir(`${project}/.claude`, { recursive: true });
      await Deno.writeTextFile(`${project}/.claude/settings.json`, SETTINGS);
      const result = await runCli(args, { cwd: launch, home: `${root}/home` });
      assertEquals(result.code, 0, `${example}: ${result.stderr}`);
      assert(result.stdout.includes(shown), `${example}: ${result.stdout}`);
    });
  }
}
