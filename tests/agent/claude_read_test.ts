/** Claude Code's Read, row by row of claude-compat.md §1 (hello.txt: 5 lines and a final "\n"). */
import { assertEquals } from "../helpers/assert.ts";
import { assertJson, ran, withKitProject } from "./claude_kit_deps.ts";

const HELLO = "line one\nline two\nline three\nline four\nline five\n";

Deno.test("Read of a whole file numbers every line, the empty one after the final newline too", async () => {
  await withKitProject({ "hello.txt": HELLO }, async (p) => {
    const result = ran(await p.call("Read", { file_path: `${p.dir}/hello.txt` }));
    assertJson(result.hookInput, { file_path: `${p.dir}/hello.txt` });
    assertEquals(result.status, "completed");
    assertJson(result.rawOutput, {
      type: "text",
      file: {
        filePath: `${p.dir}/hello.txt`,
        content: HELLO,
        numLines: 6,
        startLine: 1,
        totalLines: 6,
      },
    });
    assertEquals(
      result.modelText,
      "1\tline one\n2\tline two\n3\tline three\n4\tline four\n5\tline five\n6\t",
    );
  });
});

Deno.test("Read with offset and limit returns those lines, numbered from the offset", async () => {
  await withKitProject({ "hello.txt": HELLO }, async (p) => {
    const result = ran(
      await p.call("Read", { file_path: `${p.dir}/hello.txt`, offset: 2, limit: 2 }),
    );
    assertJson(result.rawOutput, {
      type: "text",
      file: {
        filePath: `${p.dir}/hello.txt`,
        content: "line two\nline three",
        numLines: 2,
        startLine: 2,
        totalLines: 6,
      },
    });
    assertEquals(result.modelText, "2\tline two\n3\tline three");
    assertEquals(result.locations, [{ path: `${p.dir}/hello.txt`, line: 2 }]);
  });
});

Deno.test("Read past the end warns that the file is shorter than the offset", async () => {
  await withKitProject({ "hello.txt": HELLO }, async (p) => {
    const result = ran(await p.call("Read", { file_path: `${p.dir}/hello.txt`, offset: 50 }));
    assertEquals(result.status, "completed");
    assertJson(result.rawOutput, {
      type: "text",
      file: {
        filePath: `${p.dir}/hello.txt`,
        content: "",
        numLines: 0,
        startLine: 50,
        totalLines: 6,
      },
    });
    assertEquals(
      result.modelText,
      "<system-reminder>Warning: the file exists but is shorter than the provided offset (50). " +
        "The file has 6 lines.</system-reminder>",
    );
  });
});

Deno.test("Read of an empty file warns that it is empty and counts one line", async () => {
  await withKitProject({ "empty.txt": "" }, async (p) => {
    const result = ran(await p.call("Read", { file_path: `${p.dir}/empty.txt` }));
    assertJson(result.rawOutput, {
      type: "text",
      file: {
        filePath: `${p.dir}/empty.txt`,
        content: "",
        numLines: 1,
        startLine: 1,
        totalLines: 1,
      },
    });
    assertEquals(
      result.modelText,
      "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>",
    );
  });
});

Deno.test("Read of a relative path: hooks see it absolute, the response names it as given", async () => {
  await withKitProject({ "hello.txt": HELLO }, async (p) => {
    const result = ran(await p.call("Read", { file_path: "hello.txt" }));
    assertJson(result.hookInput, { file_path: `${p.dir}/hello.txt` });
    assertEquals(Reflect.get(Object(result.rawOutput.file), "filePath"), "hello.txt");
    assertEquals(result.modelText.split("\n")[0], "1\tline one");
  });
});

Deno.test("Read of a missing file is a failed call naming the working directory", async () => {
  await withKitProject({}, async (p) => {
    const result = ran(await p.call("Read", { file_path: `${p.dir}/missing.txt` }));
    assertEquals(result.status, "failed");
    assertEquals(
      result.modelText,
      `File does not exist. Note: your current working directory is ${p.dir}.`,
    );
    assertEquals(result.interrupted, false);
  });
});

Deno.test("Read of a path under a regular file is a failed call: the file does not exist", async () => {
  await withKitProject({ "hello.txt": HELLO }, async (p) => {
    const result = ran(await p.call("Read", { file_path: "hello.txt/sub.txt" }));
    assertEquals(result.status, "failed");
    assertEquals(
      result.modelText,
      `File does not exist. Note: your current working directory is ${p.dir}.`,
    );
  });
});

Deno.test("Read of a directory is a failed call with EISDIR and the absolute path", async () => {
  await withKitProject({ "src/a.ts": "export const a = 1;\n" }, async (p) => {
    const result = ran(await p.call("Read", { file_path: "src" }));
    assertEquals(result.status, "failed");
    assertEquals(result.modelText, `EISDIR: illegal operation on a directory, read '${p.dir}/src'`);
  });
});

Deno.test("Read with a string offset is refused before any hook, in Claude Code's words", async () => {
  await withKitProject({ "hello.txt": HELLO }, async (p) => {
    const result = await p.call("Read", { file_path: `${p.dir}/hello.txt`, offset: "two" });
    assertEquals(
      result.refused,
      "<tool_use_error>InputValidationError: Read failed due to the following issue:\n" +
        "The parameter `offset` type is expected as `number` but provided as `string`" +
        "</tool_use_error>",
    );
  });
});

Deno.test("Read without a limit returns the first 2000 lines", async () => {
  const lines = Array.from({ length: 2500 }, (_, i) => `l${i + 1}`).join("\n");
  await withKitProject({ "long.txt": lines }, async (p) => {
    const result = ran(await p.call("Read", { file_path: "long.txt" }));
    const shown = result.modelText.split("\n");
    assertEquals([shown.length, shown.at(-1)], [2000, "2000\tl2000"]);
    const file = Object(result.rawOutput.file);
    assertEquals([Reflect.get(file, "numLines"), Reflect.get(file, "totalLines")], [2000, 2500]);
  });
});
