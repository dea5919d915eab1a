/** Claude Code's Write, row by row of claude-compat.md §2. */
import { assert, assertEquals } from "../helpers/assert.ts";
import { assertJson, ran, withKitProject } from "./claude_kit_deps.ts";

const SUFFIX = " (file state is current in your context — no need to Read it back)";
const HELLO = "line one\nline two\nline three\nline four\nline five\n";

Deno.test("Write of a new file creates it; the response has no patch and no original", async () => {
  await withKitProject({}, async (p) => {
    const result = ran(await p.call("Write", { file_path: "new.txt", content: "brand new\n" }));
    assertJson(result.hookInput, { file_path: `${p.dir}/new.txt`, content: "brand new\n" });
    assertJson(result.rawOutput, {
      type: "create",
      filePath: `${p.dir}/new.txt`,
      content: "brand new\n",
      structuredPatch: [],
      originalFile: null,
      userModified: false,
    });
    assertEquals(result.modelText, `File created successfully at: ${p.dir}/new.txt${SUFFIX}`);
    assertEquals(result.content, [
      { type: "diff", path: `${p.dir}/new.txt`, oldText: null, newText: "brand new\n" },
    ]);
    assertEquals(await Deno.readTextFile(`${p.dir}/new.txt`), "brand new\n");
  });
});

Deno.test("Write into directories that do not exist creates them", async () => {
  await withKitProject({}, async (p) => {
    const result = ran(
      await p.call("Write", { file_path: `${p.dir}/deep/dir/new.txt`, content: "x\n" }),
    );
    assertEquals(result.rawOutput.type, "create");
    assertEquals(
      result.modelText,
      `File created successfully at: ${p.dir}/deep/dir/new.txt${SUFFIX}`,
    );
    assertEquals(await Deno.readTextFile(`${p.dir}/deep/dir/new.txt`), "x\n");
  });
});

Deno.test("Write over a file never read is allowed: an update with its patch and original", async () => {
  await withKitProject({ "other.txt": "other content\n" }, async (p) => {
    const result = ran(
      await p.call("Write", { file_path: `${p.dir}/other.txt`, content: "overwritten\n" }),
    );
    assertJson(result.rawOutput, {
      type: "update",
      filePath: `${p.dir}/other.txt`,
      content: "overwritten\n",
      structuredPatch: [{
        oldStart: 1,
        oldLines: 1,
        newStart: 1,
        newLines: 1,
        lines: ["-other content", "+overwritten"],
      }],
      originalFile: "other content\n",
      userModified: false,
    });
    assertEquals(
      result.modelText,
      `The file ${p.dir}/other.txt has been updated successfully.${SUFFIX}`,
    );
  });
});

Deno.test("Write over a file read before gives the same shape", async () => {
  await withKitProject({ "hello.txt": HELLO }, async (p) => {
    ran(await p.call("Read", { file_path: "hello.txt" }));
    const result = ran(await p.call("Write", { file_path: "hello.txt", content: "short\n" }));
    assertEquals([result.rawOutput.type, result.rawOutput.originalFile], ["update", HELLO]);
    assertEquals(
      result.modelText,
      `The file ${p.dir}/hello.txt has been updated successfully.${SUFFIX}`,
    );
  });
});

Deno.test("Write below a regular file is refused before any hook with ENOTDIR", async () => {
  await withKitProject({ "hello.txt": HELLO }, async (p) => {
    const result = await p.call("Write", { file_path: "hello.txt/sub.txt", content: "x" });
    assertEquals(
      result.refused,
      "<tool_use_error>Error calling tool (Write): ENOTDIR: not a directory, stat " +
        `'${p.dir}/hello.txt/sub.txt'</tool_use_error>`,
    );
    assertEquals(await Deno.readTextFile(`${p.dir}/hello.txt`), HELLO);
  });
});

Deno.test("Write without content is refused before any hook, naming the parameter", async () => {
  await withKitProject({}, async (p) => {
    const result = await p.call("Write", { file_path: "new.txt" });
    assertEquals(
      result.refused,
      "<tool_use_error>InputValidationError: Write failed due to the following issue:\n" +
        "The required parameter `content` is missing</tool_use_error>",
    );
  });
});

Deno.test("Write over a file changed since it was read is refused before any hook", async () => {
  await withKitProject({ "hello.txt": HELLO }, async (p) => {
    ran(await p.call("Read", { file_path: "hello.txt" }));
    ran(await p.call("Bash", { command: "echo changed > hello.txt" }));
    const result = await p.call("Write", { file_path: "hello.txt", content: "mine\n" });
    assertEquals(
      result.refused,
      "<tool_use_error>File has been modified since read, either by the user or by a linter. " +
        "Read it again before attempting to write it.</tool_use_error>",
    );
    assertEquals(await Deno.readTextFile(`${p.dir}/hello.txt`), "changed\n");
    ran(await p.call("Read", { file_path: "hello.txt" }));
    assertEquals(
      ran(await p.call("Write", { file_path: "hello.txt", content: "mine\n" })).status,
      "completed",
    );
  });
});

Deno.test("Write to a directory fails as it runs with EISDIR", async () => {
  await withKitProject({ "src/a.ts": "" }, async (p) => {
    const result = ran(await p.call("Write", { file_path: "src", content: "x" }));
    assertEquals(result.status, "failed");
    assertEquals(result.modelText, `EISDIR: illegal operation on a directory, open '${p.dir}/src'`);
  });
});

Deno.test("Write over a file changed after its checks passed (by a hook, the user) fails as it runs and writes nothing", async () => {
  await withKitProject({ "hello.txt": HELLO }, async (p) => {
    ran(await p.call("Read", { file_path: "hello.txt" }));
    const parsed = p.kit.parse(
      "fs_write",
      { file_path: "hello.txt", content: "mine\n" },
      "Write",
      p.dir,
    );
    assert(parsed.ok);
    assertEquals(await p.kit.precheck(parsed.operation, p.deps), undefined);
    // What a PreToolUse hook, or the user while the permission prompt is open, may do.
    await Deno.writeTextFile(`${p.dir}/hello.txt`, "hook\n", { append: true });
    const result = await p.kit.execute(parsed.operation, p.deps);
    assertEquals([result.status, result.interrupted], ["failed", false]);
    assertEquals(
      result.modelText,
      "File has been modified since read, either by the user or by a linter. " +
        "Read it again before attempting to write it.",
    );
    assertEquals(await Deno.readTextFile(`${p.dir}/hello.txt`), `${HELLO}hook\n`);
  });
});
