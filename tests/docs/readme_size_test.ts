/**
 * The README is read in five minutes: at most 300 lines, with `hooks init` and `hooks test` in
 * the first screenful of the quick start. The reference lives in docs/.
 */
import { assert } from "../helpers/assert.ts";
import { REPO_ROOT } from "../helpers/run_cli.ts";

const lines = (await Deno.readTextFile(`${REPO_ROOT}/README.md`)).split("\n");

Deno.test("the README is at most 300 lines", () => {
  const count = lines.at(-1) === "" ? lines.length - 1 : lines.length;
  assert(count <= 300, `README.md has ${count} lines: move reference text to docs/`);
});

Deno.test("the README shows hooks init and hooks test in its first 120 lines", () => {
  const start = lines.slice(0, 120).join("\n");
  assert(
    /^llama-agent hooks init\b/m.test(start),
    "no `llama-agent hooks init` command in lines 1-120",
  );
  assert(
    /^llama-agent hooks test\b/m.test(start),
    "no `llama-agent hooks test` command in lines 1-120",
  );
});

Deno.test("the README's test command is the one .ci/run calls, after the same install", async () => {
  const ci = await Deno.readTextFile(`${REPO_ROOT}/.ci/run`);
  const readme = lines.join("\n");
  for (
    const command of ["npm install --omit=optional", "tools/install_test_parts.sh", "npm test"]
  ) {
    assert(ci.includes(command), `.ci/run no longer runs \`${command}\``);
    assert(
      new RegExp(`^${command.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`, "m").test(readme),
      `README.md shows no \`${command}\` line for .ci/run's step`,
    );
  }
});
