/**
 * The copy a case runs in: what it holds, where its symlinks lead, and what it never does
 * (follow a link while copying, wait on a FIFO, copy itself).
 */
import { dirname, relative, resolve } from "node:path";
import { assert, assertEquals } from "../helpers/assert.ts";
import { copyTree } from "../../src/testing/runner/copy_tree.ts";
import { createHermeticPlace } from "../../src/testing/runner/hermetic_env.ts";
import { treeOf, withTempProject } from "./scenario_project.ts";

/** Where the copy's link at `path` leads, resolved by name as the kernel starts to. */
async function leadsTo(path: string): Promise<string> {
  return resolve(dirname(path), await Deno.readLink(path));
}

Deno.test("copyTree: leaves out node_modules and .git at any depth, keeps modes and symlinks", async () => {
  await withTempProject({
    "run.sh": "echo hi\n",
    "node_modules/x/y.js": "x",
    "pkg/node_modules/z.js": "z",
    ".git/HEAD": "ref",
    "pkg/.git/HEAD": "ref",
    "pkg/lib.ts": "export {}",
  }, async (project) => {
    await Deno.symlink("pkg/lib.ts", `${project.dir}/link.ts`);
    const target = `${project.realHome}/copy`;
    await copyTree(project.dir, target);
    assertEquals(await treeOf(target), ["link.ts", "pkg", "pkg/lib.ts", "run.sh"]);
    assertEquals(await Deno.readLink(`${target}/link.ts`), "pkg/lib.ts");
    assertEquals(((await Deno.stat(`${target}/run.sh`)).mode ?? 0) & 0o777, 0o755);
  });
});

Deno.test("copyTree: an absolute symlink into the tree points into the copy; others are kept", async () => {
  await withTempProject({ "pkg/lib.ts": "export {}" }, async (project) => {
    await Deno.symlink(`${project.dir}/pkg`, `${project.dir}/into-pkg`);
    await Deno.symlink(project.dir, `${project.dir}/into-root`);
    await Deno.symlink(project.realHome, `${project.dir}/out`);
    await Deno.symlink(`${project.dir}-sibling/x`, `${project.dir}/look-alike`);
    const target = `${project.realHome}/copy`;
    await copyTree(project.dir, target);
    assertEquals(await Deno.readLink(`${target}/into-pkg`), `${target}/pkg`);
    assertEquals(await Deno.readLink(`${target}/into-root`), target);
    assertEquals(await Deno.readLink(`${target}/out`), project.realHome);
    assertEquals(await Deno.readLink(`${target}/look-alike`), `${project.dir}-sibling/x`);
  });
});

Deno.test("copyTree: a relative symlink that climbs out of the tree and back into it points into the copy", async () => {
  await withTempProject({ "victim/keep.txt": "precious\n" }, async (project) => {
    // Up to "/" (extra ".." stay there) and down again by the project's own path.
    const climb = `${"../".repeat(40)}${project.dir.slice(1)}/victim`;
    await Deno.symlink(climb, `${project.dir}/back-in`);
    // Out through a directory outside that is itself a link to the project.
    await Deno.symlink(project.dir, `${project.realHome}/alias`);
    await Deno.symlink(`../real_home/alias/victim`, `${project.dir}/via-alias`);
    await Deno.symlink(`${project.realHome}/alias/victim`, `${project.dir}/via-alias-absolute`);
    // Dangling: writing through it would create a file in the project.
    await Deno.symlink(`../real_home/alias/new.txt`, `${project.dir}/via-alias-missing`);
    const target = `${project.realHome}/copy`;
    await copyTree(project.dir, target);
    assertEquals(await leadsTo(`${target}/back-in`), `${target}/victim`);
    assertEquals(await leadsTo(`${target}/via-alias`), `${target}/victim`);
    assertEquals(await leadsTo(`${target}/via-alias-absolute`), `${target}/victim`);
    assertEquals(await leadsTo(`${target}/via-alias-missing`), `${target}/new.txt`);
    // Relative links stay relative, so the copy can be moved.
    assert(!(await Deno.readLink(`${target}/back-in`)).startsWith("/"));
  });
});

Deno.test("copyTree: a relative symlink that leads out of the tree still leads where it did", async () => {
  await withTempProject({ "sub/keep.txt": "k" }, async (project) => {
    await Deno.symlink("../real_home", `${project.dir}/home-link`);
    await Deno.symlink("../../..", `${project.dir}/sub/far-up`);
    // A copy elsewhere, deeper: the same text would lead somewhere else from there.
    const target = `${project.realHome}/a/b/c/copy`;
    await copyTree(project.dir, target);
    assertEquals(await leadsTo(`${target}/home-link`), project.realHome);
    assertEquals(await leadsTo(`${target}/sub/far-up`), resolve(project.dir, "sub/../../.."));
  });
});

Deno.test("copyTree: a link into another tree copied for the case (a fixture HOME's into the project) leads into that copy", async () => {
  await withTempProject(
    { "fixture_home/.keep": "", "shared/settings.json": "{}" },
    async (project) => {
      const home = `${project.dir}/fixture_home`;
      await Deno.symlink("../shared/settings.json", `${home}/settings.json`);
      await Deno.symlink(`${project.dir}/shared`, `${home}/shared`);
      const copies = `${project.realHome}/place`;
      await copyTree(home, `${copies}/home`, {
        copies: [{ from: project.dir, to: `${copies}/work/project` }],
      });
      assertEquals(
        await leadsTo(`${copies}/home/settings.json`),
        `${copies}/work/project/shared/settings.json`,
      );
      assertEquals(await leadsTo(`${copies}/home/shared`), `${copies}/work/project/shared`);
    },
  );
});

Deno.test("copyTree: a FIFO, a socket, a device link, a link loop and links to / and HOME: nothing is followed or opened", async () => {
  await withTempProject({ "a.txt": "a" }, async (project) => {
    const mkfifo = await new Deno.Command("mkfifo", { args: [`${project.dir}/pipe`] }).output();
    assert(mkfifo.success, "mkfifo is needed for this test");
    Deno.listen({ transport: "unix", path: `${project.dir}/sock` }).close();
    await Deno.symlink("/dev/zero", `${project.dir}/zero`);
    await Deno.symlink("loop", `${project.dir}/loop`);
    await Deno.symlink("/", `${project.dir}/slash`);
    await Deno.symlink(project.realHome, `${project.dir}/home`);
    const target = `${project.realHome}/copy`;
    await copyTree(project.dir, target);
    // Sockets and FIFOs are no part of a project's files; links are copied as links.
    assertEquals(await treeOf(target), ["a.txt", "home", "loop", "slash", "zero"]);
    assertEquals(await Deno.readLink(`${target}/zero`), "/dev/zero");
    assertEquals(await Deno.readLink(`${target}/loop`), "loop");
    assertEquals(await Deno.readLink(`${target}/slash`), "/");
    assertEquals(await Deno.readLink(`${target}/home`), project.realHome);
  });
});

Deno.test("copyTree: every file of a tree wider than the copies in flight arrives whole", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 70; i++) files[`d${i % 7}/f${i}.txt`] = `file ${i}\n`.repeat(i + 1);
  await withTempProject(files, async (project) => {
    const target = `${project.realHome}/copy`;
    await copyTree(project.dir, target);
    for (const [path, text] of Object.entries(files)) {
      assertEquals(await Deno.readTextFile(`${target}/${path}`), text);
    }
  });
});

Deno.test("a project that holds the cases' scratch directory is copied without it", async () => {
  await withTempProject({ "a.txt": "a", ".cache/other/kept.txt": "k" }, async (project) => {
    // XDG_CACHE_HOME inside the project (or the project is HOME): the copies land inside it.
    const outerEnv = (name: string) =>
      name === "XDG_CACHE_HOME" ? `${project.dir}/.cache` : project.outerEnv(name);
    const first = await createHermeticPlace({
      projectDir: project.dir,
      placement: { isolate: true },
      outerEnv,
    });
    const second = await createHermeticPlace({
      projectDir: project.dir,
      placement: { isolate: true },
      outerEnv,
    });
    try {
      assert(relative(project.dir, second.root).startsWith(".cache/"), second.root);
      assertEquals(await treeOf(second.cwd), [
        ".cache",
        ".cache/llama-agent",
        ".cache/other",
        ".cache/other/kept.txt",
        "a.txt",
      ]);
    } finally {
      await second.dispose();
      await first.dispose();
    }
  });
});
