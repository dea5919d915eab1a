/**
 * The README's CLI reference is what `--help` prints, command by command, and it leaves out no
 * command: a flag added without updating the README fails here (`deno task docs` rewrites it).
 */
import {
  DOCUMENTED_COMMANDS,
  documentedIn,
  helpText,
  README_PATH,
  withCurrentHelp,
} from "../../tools/write_cli_reference.ts";
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
// Commands' --help loads their modules, and with them the spawn path, which opens the C library
// for the rest of the process: loaded here, it is not counted as a test's open resource.
import "../../src/hooks/spawn_path.ts";

Deno.test("the README's CLI reference is exactly what --help prints", async () => {
  const readme = await Deno.readTextFile(README_PATH);
  const current = await withCurrentHelp(readme);
  if (current !== readme) {
    const [was, now] = [readme.split("\n"), current.split("\n")];
    const differs = was.findIndex((line, i) => line !== now[i]);
    const mismatch = differs === -1 ? was.length : differs;
    throw new Error(
      `README.md's CLI reference is out of date from line ${mismatch + 1}: run ` +
        "`node_modules/deno/deno task docs` and commit the result",
    );
  }
  assertEquals(documentedIn(readme), [...DOCUMENTED_COMMANDS]);
});

Deno.test("every command the CLI lists has a block in the README's CLI reference", async () => {
  const listed = async (command: string) =>
    (await helpText(command)).split("Commands:\n")[1]?.split("\n\n")[0]?.split("\n")
      .map((line) => `${command} ${line.trim().split(/\s+/)[0]}`) ?? [];
  const commands = ["llama-agent", ...await listed("llama-agent")];
  for (const group of [...commands]) {
    if (group !== "llama-agent") commands.push(...await listed(group));
  }
  assertEquals(commands.toSorted(), [...DOCUMENTED_COMMANDS].toSorted());
});

Deno.test("the quick start's two commands are the ones CI and the example test use", async () => {
  const readme = await Deno.readTextFile(README_PATH);
  const ci = await Deno.readTextFile(new URL("../../.ci/run", import.meta.url));
  assertStringIncludes(readme, "npm install --omit=optional ");
  assertStringIncludes(ci, "npm install --omit=optional");
  assertStringIncludes(readme, "bin/llama-agent hooks test --cwd examples/guard-rails");
});
