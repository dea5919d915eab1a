import { assertEquals } from "../helpers/assert.ts";
import { applyEdit, editFile } from "../../src/agent/files/file_edit.ts";
import { LocalFileAccess } from "../../src/agent/files/local_file_access.ts";
import { withTempDir } from "./temp_dir.ts";

const edit = (oldString: string, newString: string, replaceAll = false) => ({
  oldString,
  newString,
  replaceAll,
});

Deno.test("an edit replaces the one occurrence of its string", () => {
  assertEquals(applyEdit("alpha\nbeta\nalpha\n", edit("beta", "BETA")), {
    ok: true,
    updated: "alpha\nBETA\nalpha\n",
    replacements: 1,
  });
});

Deno.test("an edit of a string found several times needs replaceAll, and says how many", () => {
  assertEquals(applyEdit("alpha\nbeta\nalpha\n", edit("alpha", "ALPHA")), {
    ok: false,
    failure: "multiple_matches",
    matches: 2,
  });
  assertEquals(applyEdit("alpha\nbeta\nalpha\n", edit("alpha", "ALPHA", true)), {
    ok: true,
    updated: "ALPHA\nbeta\nALPHA\n",
    replacements: 2,
  });
});

Deno.test("an edit whose string is absent, or that changes nothing, is refused", () => {
  assertEquals(applyEdit("alpha\n", edit("gamma", "x")), {
    ok: false,
    failure: "string_not_found",
  });
  assertEquals(applyEdit("alpha\n", edit("alpha", "alpha")), { ok: false, failure: "no_change" });
  // The no-op is refused before the file is looked at, as Claude Code does.
  assertEquals(applyEdit(null, edit("", "")), { ok: false, failure: "no_change" });
});

Deno.test("an empty string to replace creates a missing file and fills an empty one only", () => {
  assertEquals(applyEdit(null, edit("", "made by edit\n")), {
    ok: true,
    updated: "made by edit\n",
    replacements: 1,
  });
  assertEquals(applyEdit("", edit("", "filled\n")), {
    ok: true,
    updated: "filled\n",
    replacements: 1,
  });
  assertEquals(applyEdit("has text\n", edit("", "x")), { ok: false, failure: "file_exists" });
  assertEquals(applyEdit(null, edit("text", "x")), { ok: false, failure: "file_missing" });
});

Deno.test("the new text is inserted literally, dollar signs included", () => {
  assertEquals(applyEdit("price\n", edit("price", "$& and $1")), {
    ok: true,
    updated: "$& and $1\n",
    replacements: 1,
  });
});

Deno.test("editFile writes the edited text through the file door and nothing on failure", async () => {
  await withTempDir({ "a.txt": "one two one\n" }, async (dir) => {
    const files = new LocalFileAccess({ cwd: dir, roots: [dir] });
    assertEquals(await editFile(files, "a.txt", edit("two", "2")), {
      ok: true,
      original: "one two one\n",
      updated: "one 2 one\n",
      replacements: 1,
    });
    assertEquals(await Deno.readTextFile(`${dir}/a.txt`), "one 2 one\n");
    const refused = await editFile(files, "a.txt", edit("one", "1"));
    assertEquals(refused, {
      ok: false,
      kind: "edit",
      failure: "multiple_matches",
      matches: 2,
      original: "one 2 one\n",
    });
    assertEquals(await Deno.readTextFile(`${dir}/a.txt`), "one 2 one\n");
    const created = await editFile(files, "new/b.txt", edit("", "fresh\n"));
    assertEquals(created.ok && created.original, null);
    assertEquals(await Deno.readTextFile(`${dir}/new/b.txt`), "fresh\n");
    const outside = await editFile(files, "/etc/hostname", edit("a", "b"));
    assertEquals(outside.ok === false && outside.kind, "access");
  });
});

Deno.test("a CRLF file is edited with LF text and keeps CRLF throughout", () => {
  const original = "one\r\ntwo\r\nthree\r\n";
  assertEquals(
    applyEdit(original, { oldString: "one\ntwo", newString: "1\n2", replaceAll: false }),
    { ok: true, updated: "1\r\n2\r\nthree\r\n", replacements: 1 },
  );
  assertEquals(
    applyEdit(original, { oldString: "two", newString: "two\nextra", replaceAll: false }),
    { ok: true, updated: "one\r\ntwo\r\nextra\r\nthree\r\n", replacements: 1 },
  );
  // An LF file is left as it is.
  assertEquals(
    applyEdit("a\nb\n", { oldString: "a", newString: "x", replaceAll: false }),
    { ok: true, updated: "x\nb\n", replacements: 1 },
  );
});

Deno.test("a file's byte order mark survives an edit", async () => {
  const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
  await withTempDir({}, async (dir) => {
    await Deno.writeFile(
      `${dir}/b.txt`,
      new Uint8Array([...bom, ...new TextEncoder().encode("hello\n")]),
    );
    const files = new LocalFileAccess({ cwd: dir, roots: [dir] });
    const edited = await editFile(files, "b.txt", {
      oldString: "hello",
      newString: "bye",
      replaceAll: false,
    });
    assertEquals(edited.ok, true);
    assertEquals([...(await Deno.readFile(`${dir}/b.txt`))], [
      ...bom,
      ...new TextEncoder().encode("bye\n"),
    ]);
  });
});
