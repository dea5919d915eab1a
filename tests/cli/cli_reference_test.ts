/**
 * The CLI reference (docs/cli.md) is what `--help` prints, command by command, and it leaves out
 * no command: a flag added without updating the page fails here (`deno task docs` rewrites it).
 */
import {
  CLI_REFERENCE_PATH,
  DOCUMENTED_COMMANDS,
  documentedIn,
  helpText,
  withCurrentHelp,
} from "../../tools/write_cli_reference.ts";
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { REPO_ROOT } from "../helpers/run_cli.ts";
// Commands' --help loads their modules, and with them the spawn path, which opens the C library
// for the rest of the process: loaded here, it is not counted as a test's open resource.
import "../../src/os/process/spawn_path.ts";

Deno.test("the CLI reference in docs/cli.md is exactly what --help prints", async () => {
  const page = await Deno.readTextFile(CLI_REFERENCE_PATH);
  const current = await withCurrentHelp(page);
  if (current !== page) {
    const [was, now] = [page.split("\n"), current.split("\n")];
    const differs = was.findIndex((line, i) => line !== now[i]);
    const mismatch = differs === -1 ? was.length : differs;
    throw new Error(
      `docs/cli.md is out of date from line ${mismatch + 1}: run ` +
        "`node_modules/deno/deno task docs` and commit the result",
    );
  }
  assertEquals(documentedIn(page), [...DOCUMENTED_COMMANDS]);
});

Deno.test("every command the CLI lists has a block in the CLI reference", async () => {
  const listed = async (command: string) =>
    (await helpText(command)).split("Commands:\n")[1]?.split("\n\n")[0]?.split("\n")
      .map((line) => `${command} ${line.trim().split(/\s+/)[0]}`) ?? [];
  const commands = ["llama-agent", ...await listed("llama-agent")];
  for (const group of [...commands]) {
    if (group !== "llama-agent") commands.push(...await listed(group));
  }
  assertEquals(commands.toSorted(), [...DOCUMENTED_COMMANDS].toSorted());
});

Deno.test("the README's install from a clone is the one CI runs", async () => {
  const readme = await Deno.readTextFile(`${REPO_ROOT}/README.md`);
  const ci = await Deno.readTextFile(new URL("../../.ci/run", import.meta.url));
  assertStringIncludes(readme, "npm install --omit=optional ");
  assertStringIncludes(ci, "npm install --omit=optional");
  assertStringIncludes(readme, "bin/llama-agent hooks test --cwd examples/guard-rails");
});
