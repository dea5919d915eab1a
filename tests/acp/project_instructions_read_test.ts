/**
 * How instruction files are read and cut: the cap spans all files, a cut ends at a line end (or
 * a character boundary), a file the earlier ones left no room for is left out with a notice, and
 * a CLAUDE.md that links to AGENTS.md is read once.
 */
import {
  cutAtLineEnd,
  readProjectInstructions,
} from "../../src/acp/session/project_instructions.ts";
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { withTempProject } from "../helpers/run_cli.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const decoded = (data: Uint8Array) => new TextDecoder().decode(data);

Deno.test("a cut ends after the last whole line within the limit", () => {
  assertEquals(decoded(cutAtLineEnd(bytes("one\ntwo\nthree\n"), 10)), "one\ntwo\n");
  assertEquals(decoded(cutAtLineEnd(bytes("one\n"), 10)), "one\n", "under the limit: whole");
});

Deno.test("a cut in a line without a line end never splits a character", () => {
  // "é" is two bytes: a limit of 4 falls inside the second one.
  assertEquals(decoded(cutAtLineEnd(bytes("aéé"), 4)), "aé");
  assertEquals(decoded(cutAtLineEnd(bytes("aéé"), 2)), "a");
});

Deno.test("the cap spans all files: a later file with no room left is left out, with a notice", async () => {
  await withTempProject({ "CLAUDE.md": "x\n".repeat(8), "AGENTS.md": "agents\n" }, async (cwd) => {
    const read = await readProjectInstructions(
      { cwd, roots: [cwd] },
      ["CLAUDE.md", "AGENTS.md"],
      16,
    );
    assertEquals(read.forModel.length, 1);
    assertStringIncludes(read.forModel[0]!, "x\nx");
    assertEquals(read.notices.length, 1);
    assertStringIncludes(read.notices[0]!, "AGENTS.md is cut");
    assertStringIncludes(read.notices[0]!, "the model does not see it");
  });
});

Deno.test("a CLAUDE.md that links to AGENTS.md is read once", async () => {
  await withTempProject({ "AGENTS.md": "Be brief.\n" }, async (cwd) => {
    await Deno.symlink("AGENTS.md", `${cwd}/CLAUDE.md`);
    const read = await readProjectInstructions({ cwd, roots: [cwd] }, ["CLAUDE.md", "AGENTS.md"]);
    assertEquals(read.forModel, ["Instructions from CLAUDE.md:\n\nBe brief."]);
    assertEquals(
      read.summary,
      `Project instructions: CLAUDE.md (10 bytes), AGENTS.md is CLAUDE.md from "${cwd}"`,
    );
  });
});

Deno.test("a link into an additional directory of the session is followed; one elsewhere under the roots is not", async () => {
  await withTempProject({
    "project/.keep": "",
    "shared/AGENTS.md": "Shared rules.\n",
    "home/notes.md": "private\n",
  }, async (root) => {
    const cwd = `${root}/project`;
    const roots = [cwd, `${root}/shared`, `${root}/home`];
    await Deno.symlink(`${root}/shared/AGENTS.md`, `${cwd}/AGENTS.md`);
    const shared = await readProjectInstructions(
      { cwd, additionalDirectories: [`${root}/shared`], roots },
      ["AGENTS.md"],
    );
    assertEquals(shared.forModel, ["Instructions from AGENTS.md:\n\nShared rules."]);
    await Deno.remove(`${cwd}/AGENTS.md`);
    await Deno.symlink(`${root}/home/notes.md`, `${cwd}/AGENTS.md`);
    const home = await readProjectInstructions(
      { cwd, additionalDirectories: [`${root}/shared`], roots },
      ["AGENTS.md"],
    );
    assertEquals(home.forModel, []);
    assertStringIncludes(
      home.notices[0]!,
      `it resolves to "${root}/home/notes.md", which is outside the project ("${cwd}", ` +
        `"${root}/shared")`,
    );
  });
});
