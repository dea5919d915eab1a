import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import {
  allowedRoots,
  confinePath,
  isInsideRoots,
  realPathAllowingMissing,
} from "../../src/os/files/allowed_roots.ts";
import { withTempDir } from "./temp_dir.ts";

/** A project dir and an outside dir, both real, side by side. */
function withProject<T>(fn: (project: string, outside: string, base: string) => Promise<T>) {
  return withTempDir({
    "project/notes.txt": "hello\n",
    "project/src/main.ts": "export {};\n",
    "outside/secret.txt": "secret\n",
    "extra/data.txt": "data\n",
  }, (base) => fn(`${base}/project`, `${base}/outside`, base));
}

Deno.test("a path inside the session cwd resolves to its real path", async () => {
  await withProject(async (project) => {
    const roots = await allowedRoots({ launchCwd: project, home: undefined });
    assertEquals(await confinePath("notes.txt", { cwd: project, roots }), {
      ok: true,
      path: `${project}/notes.txt`,
    });
    assertEquals(await confinePath(`${project}/src/../src/main.ts`, { cwd: project, roots }), {
      ok: true,
      path: `${project}/src/main.ts`,
    });
    assertEquals(await confinePath(".", { cwd: `${project}/src`, roots }), {
      ok: true,
      path: `${project}/src`,
    });
  });
});

Deno.test("a ../ escape is refused with the resolved path and the roots named", async () => {
  await withProject(async (project, outside) => {
    const roots = await allowedRoots({ launchCwd: project, home: undefined });
    const result = await confinePath("../outside/secret.txt", { cwd: project, roots });
    assert(!result.ok);
    assertEquals(
      result.reason,
      `it resolves to "${outside}/secret.txt", which is outside the allowed directories ` +
        `("${project}")`,
    );
    const absolute = await confinePath(`${outside}/secret.txt`, { cwd: project, roots });
    assert(!absolute.ok);
    assertStringIncludes(absolute.reason, `it is outside the allowed directories ("${project}")`);
  });
});

Deno.test("a symlink pointing outside is refused, even for a file that does not exist yet", async () => {
  await withProject(async (project, outside) => {
    await Deno.symlink(outside, `${project}/link_out`);
    await Deno.symlink(`${outside}/secret.txt`, `${project}/secret_link.txt`);
    const roots = await allowedRoots({ launchCwd: project, home: undefined });
    for (const path of ["link_out/secret.txt", "secret_link.txt", "link_out/new.txt", "link_out"]) {
      const result = await confinePath(path, { cwd: project, roots });
      assert(!result.ok, `${path} should be refused`);
      assertStringIncludes(result.reason, `it resolves to "${outside}`);
    }
  });
});

Deno.test("a dangling symlink is followed to its target: writing through it would create it", async () => {
  await withProject(async (project, outside) => {
    await Deno.symlink(`${outside}/not_yet.txt`, `${project}/dangling.txt`);
    await Deno.symlink(`${outside}/no_dir`, `${project}/dangling_dir`);
    const roots = await allowedRoots({ launchCwd: project, home: undefined });
    const file = await confinePath("dangling.txt", { cwd: project, roots });
    assert(!file.ok);
    assertStringIncludes(file.reason, `"${outside}/not_yet.txt"`);
    const below = await confinePath("dangling_dir/a/b.txt", { cwd: project, roots });
    assert(!below.ok);
    assertStringIncludes(below.reason, `"${outside}/no_dir/a/b.txt"`);
  });
});

Deno.test("a symlink from inside to inside is fine and resolves to its target", async () => {
  await withProject(async (project) => {
    await Deno.symlink(`${project}/src`, `${project}/src_link`);
    await Deno.symlink("notes.txt", `${project}/relative_link.txt`);
    const roots = await allowedRoots({ launchCwd: project, home: undefined });
    assertEquals(await confinePath("src_link/main.ts", { cwd: project, roots }), {
      ok: true,
      path: `${project}/src/main.ts`,
    });
    assertEquals(await confinePath("relative_link.txt", { cwd: project, roots }), {
      ok: true,
      path: `${project}/notes.txt`,
    });
  });
});

Deno.test("a file that does not exist yet inside a root is allowed, missing dirs included", async () => {
  await withProject(async (project) => {
    const roots = await allowedRoots({ launchCwd: project, home: undefined });
    assertEquals(await confinePath("new/deeper/file.txt", { cwd: project, roots }), {
      ok: true,
      path: `${project}/new/deeper/file.txt`,
    });
  });
});

Deno.test("home and additional directories are roots too, resolved through symlinks", async () => {
  await withProject(async (project, outside, base) => {
    await Deno.symlink(`${base}/extra`, `${base}/extra_link`);
    const roots = await allowedRoots({
      launchCwd: project,
      home: outside,
      additionalDirectories: [`${base}/extra_link`, "../extra", project],
    });
    assertEquals(roots, [project, outside, `${base}/extra`]);
    assert((await confinePath(`${outside}/secret.txt`, { cwd: project, roots })).ok);
    assertEquals(await confinePath(`${base}/extra_link/data.txt`, { cwd: project, roots }), {
      ok: true,
      path: `${base}/extra/data.txt`,
    });
    const elsewhere = await confinePath(`${base}/other.txt`, { cwd: project, roots });
    assert(!elsewhere.ok);
    assertStringIncludes(
      elsewhere.reason,
      `("${project}", "${outside}", "${base}/extra")`,
    );
  });
});

Deno.test("a sibling whose name starts like a root is not inside it", () => {
  assert(!isInsideRoots("/work/main2/x", ["/work/main"]));
  assert(isInsideRoots("/work/main", ["/work/main"]));
  assert(isInsideRoots("/work/main/x", ["/work/main"]));
  assert(isInsideRoots("/anything", ["/"]));
});

Deno.test("a symlink loop is reported, not followed forever", async () => {
  await withProject(async (project) => {
    await Deno.symlink(`${project}/loop_b`, `${project}/loop_a`);
    await Deno.symlink(`${project}/loop_a`, `${project}/loop_b`);
    const result = await realPathAllowingMissing(`${project}/loop_a/file.txt`);
    assert(!result.ok);
    assertStringIncludes(result.reason, "loop_a");
  });
});
