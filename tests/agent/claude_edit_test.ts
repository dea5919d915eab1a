/** Claude Code's Edit, row by row of claude-compat.md §3 (hello.txt: `alpha\nbeta\nalpha\n`). */
import { assert, assertEquals } from "../helpers/assert.ts";
import { assertJson, type KitProject, ran, withKitProject } from "./claude_kit_deps.ts";

const MODIFIED = "File has been modified since read, either by the user or by a linter. " +
  "Read it again before attempting to write it.";
const SUFFIX = " (file state is current in your context — no need to Read it back)";
const FILE = "alpha\nbeta\nalpha\n";

function missingFileRefusal(cwd: string): string {
  return `<tool_use_error>File does not exist. Note: your current working directory is ${cwd}.` +
    "</tool_use_error>";
}

/** A project whose hello.txt the model has read. */
async function withReadFile(fn: (p: KitProject) => Promise<void>): Promise<void> {
  await withKitProject({ "hello.txt": FILE }, async (p) => {
    ran(await p.call("Read", { file_path: "hello.txt" }));
    await fn(p);
  });
}

Deno.test("Edit: hooks see replace_all:false appended and the path absolute", async () => {
  await withReadFile(async (p) => {
    const result = ran(
      await p.call("Edit", { file_path: "hello.txt", old_string: "beta", new_string: "BETA" }),
    );
    assertJson(result.hookInput, {
      file_path: `${p.dir}/hello.txt`,
      old_string: "beta",
      new_string: "BETA",
      replace_all: false,
    });
  });
});

Deno.test("Edit of a read file replaces the one match; response key for key, with the suffix", async () => {
  await withReadFile(async (p) => {
    const result = ran(
      await p.call("Edit", {
        file_path: `${p.dir}/hello.txt`,
        old_string: "beta",
        new_string: "BETA",
      }),
    );
    assertJson(result.rawOutput, {
      filePath: `${p.dir}/hello.txt`,
      oldString: "beta",
      newString: "BETA",
      originalFile: FILE,
      structuredPatch: [{
        oldStart: 1,
        oldLines: 3,
        newStart: 1,
        newLines: 3,
        lines: [" alpha", "-beta", "+BETA", " alpha"],
      }],
      userModified: false,
      replaceAll: false,
    });
    assertEquals(
      result.modelText,
      `The file ${p.dir}/hello.txt has been updated successfully.${SUFFIX}`,
    );
    assertEquals(result.content, [
      { type: "diff", path: `${p.dir}/hello.txt`, oldText: FILE, newText: "alpha\nBETA\nalpha\n" },
    ]);
    assertEquals(await Deno.readTextFile(`${p.dir}/hello.txt`), "alpha\nBETA\nalpha\n");
  });
});

Deno.test("Edit with replace_all replaces every match and says so", async () => {
  await withKitProject({ "hello.txt": "alpha\nBETA\nalpha\n" }, async (p) => {
    ran(await p.call("Read", { file_path: "hello.txt" }));
    const result = ran(
      await p.call("Edit", {
        file_path: "hello.txt",
        old_string: "alpha",
        new_string: "ALPHA",
        replace_all: true,
      }),
    );
    assertEquals(result.rawOutput.replaceAll, true);
    assertEquals(result.rawOutput.structuredPatch, [{
      oldStart: 1,
      oldLines: 3,
      newStart: 1,
      newLines: 3,
      lines: ["-alpha", "+ALPHA", " BETA", "-alpha", "+ALPHA"],
    }]);
    assertEquals(
      result.modelText,
      `The file ${p.dir}/hello.txt has been updated. All occurrences were successfully ` +
        `replaced.${SUFFIX}`,
    );
  });
});

Deno.test("Edit of a never-read file succeeds, marked as not in the model's context, no suffix", async () => {
  await withKitProject({ "src/a.ts": "export const a = 1;\n" }, async (p) => {
    const result = ran(
      await p.call("Edit", { file_path: "src/a.ts", old_string: "1", new_string: "2" }),
    );
    const keys = Object.keys(result.rawOutput);
    assertEquals(keys.at(-1), "contentNotInModelContext");
    assertEquals(result.rawOutput.contentNotInModelContext, true);
    assertEquals(result.modelText, `The file ${p.dir}/src/a.ts has been updated successfully.`);
  });
});

Deno.test("Edit with an empty old_string creates a missing file", async () => {
  await withKitProject({}, async (p) => {
    const result = ran(
      await p.call("Edit", {
        file_path: "created-by-edit.txt",
        old_string: "",
        new_string: "made by edit\n",
      }),
    );
    assertJson(result.rawOutput, {
      filePath: `${p.dir}/created-by-edit.txt`,
      oldString: "",
      newString: "made by edit\n",
      originalFile: "",
      structuredPatch: [{
        oldStart: 1,
        oldLines: 0,
        newStart: 1,
        newLines: 1,
        lines: ["+made by edit"],
      }],
      userModified: false,
      replaceAll: false,
    });
    assertEquals(
      result.modelText,
      `The file ${p.dir}/created-by-edit.txt has been updated successfully.${SUFFIX}`,
    );
    assertEquals(await Deno.readTextFile(`${p.dir}/created-by-edit.txt`), "made by edit\n");
  });
});

const refusals: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
  [
    "a string not in the file",
    { old_string: "not-there", new_string: "x" },
    "String to replace not found in file.\nString: not-there",
  ],
  [
    "a string found twice without replace_all",
    { old_string: "alpha", new_string: "x" },
    "Found 2 matches of the string to replace, but replace_all is false. To replace all " +
    "occurrences, set replace_all to true. To replace only one occurrence, please provide more " +
    "context to uniquely identify the instance.\nString: alpha",
  ],
  [
    "old_string equal to new_string",
    { old_string: "beta", new_string: "beta" },
    "No changes to make: old_string and new_string are exactly the same.",
  ],
];

for (const [what, input, text] of refusals) {
  Deno.test(`Edit with ${what} is refused before any hook and changes nothing`, async () => {
    await withReadFile(async (p) => {
      const result = await p.call("Edit", { file_path: "hello.txt", ...input });
      assertEquals(result.refused, `<tool_use_error>${text}</tool_use_error>`);
      assertEquals(await Deno.readTextFile(`${p.dir}/hello.txt`), FILE);
    });
  });
}

Deno.test("Edit of a missing file is refused before any hook", async () => {
  await withKitProject({}, async (p) => {
    const result = await p.call("Edit", {
      file_path: "nope.txt",
      old_string: "a",
      new_string: "b",
    });
    assertEquals(result.refused, missingFileRefusal(p.dir));
  });
});

Deno.test("Edit of a file changed since it was read is refused before any hook", async () => {
  await withReadFile(async (p) => {
    ran(await p.call("Bash", { command: "printf 'alpha\\nbeta\\n' > hello.txt" }));
    const result = await p.call("Edit", {
      file_path: "hello.txt",
      old_string: "beta",
      new_string: "BETA",
    });
    assertEquals(result.refused, `<tool_use_error>${MODIFIED}</tool_use_error>`);
  });
});

Deno.test("Edit after the kit's own edit needs no new read", async () => {
  await withReadFile(async (p) => {
    ran(await p.call("Edit", { file_path: "hello.txt", old_string: "beta", new_string: "B" }));
    const second = ran(
      await p.call("Edit", { file_path: "hello.txt", old_string: "B", new_string: "C" }),
    );
    assertEquals(second.status, "completed");
    assertEquals(await Deno.readTextFile(`${p.dir}/hello.txt`), "alpha\nC\nalpha\n");
  });
});

Deno.test("Edit of a path under a regular file is refused before any hook: the file does not exist", async () => {
  await withReadFile(async (p) => {
    const result = await p.call("Edit", {
      file_path: "hello.txt/sub.txt",
      old_string: "a",
      new_string: "b",
    });
    assertEquals(result.refused, missingFileRefusal(p.dir));
    assertEquals(await Deno.readTextFile(`${p.dir}/hello.txt`), FILE);
  });
});

/** The Edit as parsed and cleared by the checks before hooks. */
async function checkedEdit(p: KitProject, input: Record<string, unknown>) {
  const parsed = p.kit.parse("fs_edit", input, "Edit", p.dir);
  assert(parsed.ok);
  assertEquals(await p.kit.precheck(parsed.operation, p.deps), undefined);
  return parsed.operation;
}

Deno.test("Edit of a file changed after its checks passed (by a hook, the user) fails as it runs and writes nothing", async () => {
  await withReadFile(async (p) => {
    const edit = await checkedEdit(p, {
      file_path: "hello.txt",
      old_string: "beta",
      new_string: "B",
    });
    // What a PreToolUse hook, or the user while the permission prompt is open, may do.
    await Deno.writeTextFile(`${p.dir}/hello.txt`, "hook\n", { append: true });
    const result = await p.kit.execute(edit, p.deps);
    assertEquals([result.status, result.modelText], ["failed", MODIFIED]);
    assertEquals(await Deno.readTextFile(`${p.dir}/hello.txt`), `${FILE}hook\n`);
  });
});

Deno.test("Edit that a hook's updatedInput points at a file changed since read fails as it runs", async () => {
  await withKitProject({ "a.txt": "alpha\n", "b.txt": "bee\n" }, async (p) => {
    ran(await p.call("Read", { file_path: "b.txt" }));
    ran(await p.call("Bash", { command: "echo changed >> b.txt" }));
    await checkedEdit(p, { file_path: "a.txt", old_string: "alpha", new_string: "A" });
    const rewritten = p.kit.parse(
      "fs_edit",
      { file_path: "b.txt", old_string: "bee", new_string: "BEE" },
      "Edit",
      p.dir,
    );
    assert(rewritten.ok);
    const result = await p.kit.execute(rewritten.operation, p.deps);
    assertEquals([result.status, result.modelText], ["failed", MODIFIED]);
    assertEquals(await Deno.readTextFile(`${p.dir}/b.txt`), "bee\nchanged\n");
    assertEquals(await Deno.readTextFile(`${p.dir}/a.txt`), "alpha\n");
  });
});
