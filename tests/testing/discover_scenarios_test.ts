import { assertEquals } from "../helpers/assert.ts";
import { discoverScenarios } from "../../src/testing/scenarios/discover_scenarios.ts";
import { linkToDevZero, makeFifo, withSocketMaker } from "../hooks/special_files.ts";
import { withFiles } from "./scenario_files.ts";

const SCENARIO = '{"cases": [{"name": "n", "event": "Stop", "expect": {"errors": 0}}]}';

/** A temp dir holding `files`, each a scenario (a path ending in "/" is an empty directory). */
function withTree<T>(files: readonly string[], fn: (dir: string) => Promise<T>): Promise<T> {
  return withFiles(Object.fromEntries(files.map((path) => [path, SCENARIO])), fn);
}

const relative = (dir: string, files: readonly string[]) =>
  files.map((f) => f.startsWith(`${dir}/`) ? f.slice(dir.length + 1) : f);

Deno.test("by default every .test.jsonc under .claude/hooks-tests is found, sorted", async () => {
  await withTree([
    ".claude/hooks-tests/z.test.jsonc",
    ".claude/hooks-tests/a.test.jsonc",
    ".claude/hooks-tests/nested/deeper/b.test.jsonc",
    ".claude/hooks-tests/a/c.test.jsonc",
    ".claude/hooks-tests/notes.jsonc",
    ".claude/hooks-tests/old.test.json",
    ".claude/settings.test.jsonc",
    "elsewhere/x.test.jsonc",
  ], async (dir) => {
    const found = await discoverScenarios(dir, []);
    assertEquals(found.problems, []);
    assertEquals(relative(dir, found.files), [
      ".claude/hooks-tests/a.test.jsonc",
      ".claude/hooks-tests/a/c.test.jsonc",
      ".claude/hooks-tests/nested/deeper/b.test.jsonc",
      ".claude/hooks-tests/z.test.jsonc",
    ]);
  });
});

Deno.test("a project without .claude/hooks-tests has no scenario files and no problem", async () => {
  await withTree([".claude/"], async (dir) => {
    assertEquals(await discoverScenarios(dir, []), { files: [], problems: [] });
  });
});

Deno.test("named files and directories are taken in the order given, each once", async () => {
  await withTree([
    "project/.claude/hooks-tests/default.test.jsonc",
    "project/checks/b.test.jsonc",
    "project/checks/a.test.jsonc",
    "project/checks/sub/c.test.jsonc",
    "project/checks/readme.md",
    "project/one-off.jsonc",
    "cwd/mine.test.jsonc",
  ], async (dir) => {
    const found = await discoverScenarios(
      `${dir}/project`,
      ["mine.test.jsonc", "one-off.jsonc", "checks", "checks/b.test.jsonc", `${dir}/cwd`],
      `${dir}/cwd`,
    );
    assertEquals(found.problems, []);
    assertEquals(relative(dir, found.files), [
      // Relative to cwd first, then to the project.
      "cwd/mine.test.jsonc",
      // A file named explicitly is taken whatever its name.
      "project/one-off.jsonc",
      "project/checks/a.test.jsonc",
      "project/checks/b.test.jsonc",
      "project/checks/sub/c.test.jsonc",
    ]);
  });
});

Deno.test("a path that names nothing, or a directory without scenarios, is a problem", async () => {
  await withTree(["project/empty/", "project/ok.test.jsonc"], async (dir) => {
    const found = await discoverScenarios(
      `${dir}/project`,
      ["missing.test.jsonc", "ok.test.jsonc", "empty"],
      `${dir}/project`,
    );
    assertEquals(relative(dir, found.files), ["project/ok.test.jsonc"]);
    assertEquals(found.problems, [
      {
        file: "missing.test.jsonc",
        line: 1,
        column: 1,
        pointer: "",
        message: 'Cannot find scenarios: "missing.test.jsonc" does not exist',
      },
      {
        file: "empty",
        line: 1,
        column: 1,
        pointer: "",
        message: 'Cannot find scenarios: no .test.jsonc files in "empty"',
      },
    ]);
  });
});

Deno.test("symlinked directories are not entered; symlinked files are taken", async () => {
  await withTree([
    "project/.claude/hooks-tests/real.test.jsonc",
    "outside/far.test.jsonc",
  ], async (dir) => {
    const tests = `${dir}/project/.claude/hooks-tests`;
    await Deno.symlink(tests, `${tests}/loop`);
    await Deno.symlink(`${dir}/outside`, `${tests}/out`);
    await Deno.symlink(`${dir}/outside/far.test.jsonc`, `${tests}/linked.test.jsonc`);
    const found = await discoverScenarios(`${dir}/project`, []);
    assertEquals(found.problems, []);
    assertEquals(relative(dir, found.files), [
      "project/.claude/hooks-tests/linked.test.jsonc",
      "project/.claude/hooks-tests/real.test.jsonc",
    ]);
    // Named on the command line, a symlinked directory is searched.
    const named = await discoverScenarios(`${dir}/project`, [`${tests}/out`]);
    assertEquals(relative(dir, named.files), ["project/.claude/hooks-tests/out/far.test.jsonc"]);
  });
});

Deno.test("a FIFO, a socket or a link to /dev/zero named as a scenario is found, not skipped", async () => {
  await withTree(["project/.claude/hooks-tests/real.test.jsonc"], async (dir) => {
    const tests = `${dir}/project/.claude/hooks-tests`;
    await withSocketMaker(async (makeSocket) => {
      await makeFifo(`${tests}/fifo.test.jsonc`);
      makeSocket(`${tests}/socket.test.jsonc`);
      await linkToDevZero(`${tests}/zero.test.jsonc`);
      // Other names stay out, whatever they are.
      await makeFifo(`${tests}/fifo.jsonc`);
      const found = await discoverScenarios(`${dir}/project`, []);
      assertEquals(found.problems, []);
      assertEquals(relative(dir, found.files), [
        "project/.claude/hooks-tests/fifo.test.jsonc",
        "project/.claude/hooks-tests/real.test.jsonc",
        "project/.claude/hooks-tests/socket.test.jsonc",
        "project/.claude/hooks-tests/zero.test.jsonc",
      ]);
    });
  });
});
