import { assertEquals } from "../helpers/assert.ts";
import { WorkingDirectory } from "../../src/agent/shell/working_directory.ts";
import { withTempDir } from "./temp_dir.ts";

const TREE = { "proj/sub/deep/.keep": "", "extra/lib/.keep": "", "outside/.keep": "" };

Deno.test("a directory inside the session's own is kept, and home again is the session's name", async () => {
  await withTempDir(TREE, async (dir) => {
    const wd = new WorkingDirectory(`${dir}/proj`);
    assertEquals(wd.current, `${dir}/proj`);
    assertEquals(await wd.follow(`${dir}/proj/sub/deep`), { reset: false });
    assertEquals(wd.current, `${dir}/proj/sub/deep`);
    assertEquals(await wd.follow(`${dir}/proj`), { reset: false });
    assertEquals(wd.current, `${dir}/proj`);
  });
});

Deno.test("an additional directory is the session's too", async () => {
  await withTempDir(TREE, async (dir) => {
    const wd = new WorkingDirectory(`${dir}/proj`, [`${dir}/extra`]);
    assertEquals(await wd.follow(`${dir}/extra/lib`), { reset: false });
    assertEquals(wd.current, `${dir}/extra/lib`);
  });
});

Deno.test("anywhere else resets to the session's directory, and says so", async () => {
  await withTempDir(TREE, async (dir) => {
    const wd = new WorkingDirectory(`${dir}/proj`);
    await wd.follow(`${dir}/proj/sub`);
    for (const elsewhere of [`${dir}/outside`, dir, "/", `${dir}/proj/../outside`]) {
      assertEquals(await wd.follow(elsewhere), { reset: true }, elsewhere);
      assertEquals(wd.current, `${dir}/proj`);
    }
  });
});

Deno.test("a reported path is judged by where it really leads: a link out of the session resets", async () => {
  await withTempDir(TREE, async (dir) => {
    await Deno.symlink(`${dir}/outside`, `${dir}/proj/out`);
    const wd = new WorkingDirectory(`${dir}/proj`);
    assertEquals(await wd.follow(`${dir}/proj/out`), { reset: true });
    assertEquals(wd.current, `${dir}/proj`);
    // A report of something that is no directory (a file the command wrote over) too.
    assertEquals(await wd.follow(`${dir}/proj/sub/deep/.keep`), { reset: true });
    assertEquals(await wd.follow(`${dir}/proj/missing`), { reset: true });
  });
});

Deno.test("a session opened through a link follows the real paths pwd -P reports", async () => {
  await withTempDir(TREE, async (dir) => {
    await Deno.symlink(`${dir}/proj`, `${dir}/link`);
    const wd = new WorkingDirectory(`${dir}/link`);
    assertEquals(await wd.follow(`${dir}/proj/sub`), { reset: false });
    assertEquals(wd.current, `${dir}/proj/sub`);
    // Back at its top, it has the name it was opened with.
    assertEquals(await wd.follow(`${dir}/proj`), { reset: false });
    assertEquals(wd.current, `${dir}/link`);
  });
});

Deno.test("a current directory removed since is given up for the session's, silently", async () => {
  await withTempDir(TREE, async (dir) => {
    const wd = new WorkingDirectory(`${dir}/proj`);
    await wd.follow(`${dir}/proj/sub/deep`);
    await Deno.remove(`${dir}/proj/sub`, { recursive: true });
    await wd.ensureExists();
    assertEquals(wd.current, `${dir}/proj`);
  });
});
