/**
 * A case's settings override is written into the case's copies, which keep the project's and the
 * fixture HOME's symlinks: it replaces a linked settings file's link, and never writes or removes
 * anything where a link leads out of the case's place. The "outside" is a temp dir of its own.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { AgentError } from "../../src/error.ts";
import { createHermeticPlace, type Placement } from "../../src/testing/runner/hermetic_env.ts";
import { type TempProject, withTempProject } from "./scenario_project.ts";

const SHARED = '{"hooks": {}}\n';
const OVERRIDE: Placement = { settings: { kind: "inline", settings: { hooks: {} } } };

async function withOutside(fn: (outside: string) => Promise<void>): Promise<void> {
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "outside_" }));
  try {
    await fn(outside);
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
}

async function placeError(project: TempProject, placement: Placement): Promise<AgentError> {
  try {
    const place = await createHermeticPlace({
      projectDir: project.dir,
      placement,
      outerEnv: project.outerEnv,
    });
    await place.dispose();
  } catch (error) {
    assert(error instanceof AgentError, String(error));
    return error;
  }
  throw new Error("the place was made");
}

Deno.test("a settings override replaces a linked settings file's link in the copy, leaving its target alone", async () => {
  await withOutside(async (outside) => {
    await Deno.writeTextFile(`${outside}/settings.json`, SHARED);
    await withTempProject({ ".claude/.keep": "" }, async (project) => {
      await Deno.symlink(`${outside}/settings.json`, `${project.dir}/.claude/settings.json`);
      const place = await createHermeticPlace({
        projectDir: project.dir,
        placement: OVERRIDE,
        outerEnv: project.outerEnv,
      });
      try {
        const written = `${place.cwd}/.claude/settings.json`;
        assert((await Deno.lstat(written)).isFile, "the override is a file of the copy's own");
        assertEquals(JSON.parse(await Deno.readTextFile(written)), { hooks: {} });
      } finally {
        await place.dispose();
      }
      assertEquals(await Deno.readTextFile(`${outside}/settings.json`), SHARED);
      assert((await Deno.lstat(`${project.dir}/.claude/settings.json`)).isSymlink);
    });
  });
});

Deno.test("a .claude linked out of the project is the case's error, naming the link; nothing where it leads is written or removed", async () => {
  await withOutside(async (outside) => {
    await Deno.writeTextFile(`${outside}/settings.json`, SHARED);
    await Deno.writeTextFile(`${outside}/settings.local.json`, SHARED);
    await withTempProject({}, async (project) => {
      await Deno.symlink(outside, `${project.dir}/.claude`);
      const error = await placeError(project, OVERRIDE);
      assertEquals(error.code, "PATH_NOT_ALLOWED");
      assertStringIncludes(
        error.message,
        `Cannot apply the settings override in the case's copy: Cannot remove ` +
          `".claude/settings.json": ".claude" is a symlink to "${outside}", outside the allowed ` +
          "directories (",
      );
      assertStringIncludes(error.message, "make it a directory, or a link that stays inside them");
      assertEquals(await Deno.readTextFile(`${outside}/settings.json`), SHARED);
      assertEquals(await Deno.readTextFile(`${outside}/settings.local.json`), SHARED);
    });
  });
});

Deno.test("a fixture HOME whose .claude leads out keeps the user settings file where it leads", async () => {
  await withOutside(async (outside) => {
    await Deno.writeTextFile(`${outside}/settings.json`, SHARED);
    await withTempProject({ "fixture_home/.keep": "" }, async (project) => {
      await Deno.symlink(outside, `${project.dir}/fixture_home/.claude`);
      const error = await placeError(project, { ...OVERRIDE, home: `${project.dir}/fixture_home` });
      assertEquals(error.code, "PATH_NOT_ALLOWED");
      assertStringIncludes(error.message, 'Cannot remove "$HOME/.claude/settings.json": "');
      assertEquals(await Deno.readTextFile(`${outside}/settings.json`), SHARED);
    });
  });
});
