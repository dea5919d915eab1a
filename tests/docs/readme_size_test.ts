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
