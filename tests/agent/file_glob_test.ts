import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { globFiles } from "../../src/agent/search/file_glob.ts";
import { withTempDir } from "./temp_dir.ts";

/** Sets the files' modification times in the order given, a second apart. */
async function ageInOrder(dir: string, paths: readonly string[]): Promise<void> {
  for (const [i, path] of paths.entries()) {
    const time = new Date(Date.UTC(2024, 0, 1, 0, 0, i));
    await Deno.utime(`${dir}/${path}`, time, time);
  }
}

Deno.test("glob lists the files matching a pattern relative to the cwd, oldest first", async () => {
  await withTempDir({
    "src/a.ts": "",
    "src/sub/b.ts": "",
    "src/c.js": "",
    "top.ts": "",
  }, async (dir) => {
    await ageInOrder(dir, ["src/sub/b.ts", "top.ts", "src/a.ts", "src/c.js"]);
    assertEquals(await globFiles({ cwd: dir, roots: [dir], pattern: "**/*.ts", limit: 100 }), {
      ok: true,
      files: [`${dir}/src/sub/b.ts`, `${dir}/top.ts`, `${dir}/src/a.ts`],
      truncated: false,
      total: 3,
      walkCapped: false,
    });
    const inSrc = await globFiles({
      cwd: dir,
      roots: [dir],
      pattern: "*.ts",
      path: "src",
      limit: 9,
    });
    assertEquals(inSrc.ok && inSrc.files, [`${dir}/src/a.ts`]);
    const prefixed = await globFiles({ cwd: dir, roots: [dir], pattern: "src/*", limit: 9 });
    assertEquals(prefixed.ok && prefixed.files, [`${dir}/src/a.ts`, `${dir}/src/c.js`]);
  });
});

Deno.test("glob returns at most the limit and counts every match", async () => {
  await withTempDir({ "a.txt": "", "b.txt": "", "c.txt": "" }, async (dir) => {
    await ageInOrder(dir, ["c.txt", "a.txt", "b.txt"]);
    assertEquals(await globFiles({ cwd: dir, roots: [dir], pattern: "*.txt", limit: 2 }), {
      ok: true,
      files: [`${dir}/c.txt`, `${dir}/a.txt`],
      truncated: true,
      total: 3,
      walkCapped: false,
    });
  });
});

Deno.test("glob skips what .gitignore ignores and the .git directory", async () => {
  await withTempDir({
    ".gitignore": "dist/\n*.log\n!keep.log\n",
    "dist/out.js": "",
    "app.log": "",
    "keep.log": "",
    "src/.gitignore": "local.js\n",
    "src/local.js": "",
    "src/main.js": "",
    ".git/config.js": "",
  }, async (dir) => {
    const found = await globFiles({ cwd: dir, roots: [dir], pattern: "**/*.{js,log}", limit: 99 });
    assertEquals(found.ok && found.files.sort(), [`${dir}/keep.log`, `${dir}/src/main.js`]);
    // The top .gitignore also holds for a search that starts below it.
    await Deno.mkdir(`${dir}/src/dist`);
    await Deno.writeTextFile(`${dir}/src/dist/x.js`, "");
    const below = await globFiles({
      cwd: dir,
      roots: [dir],
      pattern: "**/*.js",
      path: "src",
      limit: 9,
    });
    assertEquals(below.ok && below.files, [`${dir}/src/main.js`]);
  });
});

Deno.test("glob does not follow a symlink out of the allowed root", async () => {
  await withTempDir({ "outside/secret.txt": "", "root/own.txt": "" }, async (dir) => {
    const root = `${dir}/root`;
    await Deno.symlink(`${dir}/outside`, `${root}/link`);
    await Deno.symlink(`${dir}/outside/secret.txt`, `${root}/file-link.txt`);
    const found = await globFiles({ cwd: root, roots: [root], pattern: "**/*.txt", limit: 9 });
    assertEquals(found.ok && found.files, [`${root}/own.txt`]);
  });
});

Deno.test("glob refuses a directory outside the allowed roots", async () => {
  await withTempDir({ "root/a.txt": "", "other/b.txt": "" }, async (dir) => {
    const root = `${dir}/root`;
    const result = await globFiles({
      cwd: root,
      roots: [root],
      pattern: "*",
      path: `${dir}/other`,
      limit: 9,
    });
    assertEquals(result.ok, false);
    if (!result.ok) assertStringIncludes(result.message, "outside the allowed directories");
    const upward = await globFiles({ cwd: root, roots: [root], pattern: "../other/*", limit: 9 });
    assertEquals(upward.ok, false);
  });
});

Deno.test("glob says when the walk stopped at its entry cap", async () => {
  const files = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}.txt`, ""]));
  await withTempDir(files, async (dir) => {
    const result = await globFiles({
      cwd: dir,
      roots: [dir],
      pattern: "*.txt",
      limit: 100,
      maxEntries: 5,
    });
    assertEquals(result.ok && [result.total, result.walkCapped], [5, true]);
  });
});

Deno.test("glob of a missing directory is a message; of a literal file name, that file", async () => {
  await withTempDir({ "src/a.ts": "" }, async (dir) => {
    const missing = await globFiles({
      cwd: dir,
      roots: [dir],
      pattern: "*",
      path: "nope",
      limit: 9,
    });
    assertEquals(missing.ok, false);
    if (!missing.ok) assertStringIncludes(missing.message, 'Cannot search "nope"');
    const literal = await globFiles({ cwd: dir, roots: [dir], pattern: "src/a.ts", limit: 9 });
    assertEquals(literal.ok && literal.files, [`${dir}/src/a.ts`]);
    const none = await globFiles({ cwd: dir, roots: [dir], pattern: "lib/**/*.ts", limit: 9 });
    assertEquals(none.ok && none.total, 0);
  });
});
