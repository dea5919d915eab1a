/** Claude Code's Glob and Grep, as claude-compat.md §4 shows them. */
import { assertEquals } from "../helpers/assert.ts";
import { assertJson, ran, withKitProject } from "./claude_kit_deps.ts";

const PROJECT = {
  "src/a.ts": "export const a = 1;\nexport const b = 1;\n",
  "README.md": "nothing to see\n",
};

Deno.test("Glob lists matches relative to the cwd; the response counts them", async () => {
  await withKitProject(PROJECT, async (p) => {
    const result = ran(await p.call("Glob", { pattern: "**/*.ts" }));
    assertJson(result.hookInput, { pattern: "**/*.ts" });
    assertEquals(result.modelText, "src/a.ts");
    const { durationMs, ...rest } = result.rawOutput;
    assertEquals(typeof durationMs, "number");
    assertJson(rest, {
      filenames: ["src/a.ts"],
      numFiles: 1,
      truncated: false,
      totalMatches: 1,
      countIsComplete: true,
    });
    assertEquals(Object.keys(result.rawOutput)[1], "durationMs");
  });
});

Deno.test("Glob without a match: No files found", async () => {
  await withKitProject(PROJECT, async (p) => {
    const result = ran(await p.call("Glob", { pattern: "**/*.py" }));
    assertEquals(result.modelText, "No files found");
    assertEquals(
      [result.rawOutput.filenames, result.rawOutput.numFiles, result.rawOutput.totalMatches],
      [[], 0, 0],
    );
  });
});

Deno.test("Glob lists at most 100 files and says the list is cut", async () => {
  const many = Object.fromEntries(Array.from({ length: 105 }, (_, i) => [`f/${i}.txt`, ""]));
  await withKitProject(many, async (p) => {
    const result = ran(await p.call("Glob", { pattern: "f/*.txt" }));
    const lines = result.modelText.split("\n");
    assertEquals(lines.length, 101);
    assertEquals(
      lines.at(-1),
      "(Results are truncated. Consider using a more specific path or pattern.)",
    );
    assertEquals([result.rawOutput.truncated, result.rawOutput.totalMatches], [true, 105]);
  });
});

Deno.test("Grep lists the files that match: Found 1 file", async () => {
  await withKitProject(PROJECT, async (p) => {
    const result = ran(await p.call("Grep", { pattern: "export", path: p.dir }));
    assertJson(result.hookInput, { pattern: "export", path: p.dir });
    assertJson(result.rawOutput, {
      mode: "files_with_matches",
      filenames: ["src/a.ts"],
      numFiles: 1,
      totalFiles: 1,
    });
    assertEquals(result.modelText, "Found 1 file\nsrc/a.ts");
  });
});

Deno.test("Grep without a match: No files found", async () => {
  await withKitProject(PROJECT, async (p) => {
    const result = ran(await p.call("Grep", { pattern: "import" }));
    assertJson(result.rawOutput, {
      mode: "files_with_matches",
      filenames: [],
      numFiles: 0,
      totalFiles: 0,
    });
    assertEquals(result.modelText, "No files found");
  });
});

Deno.test("Grep in content mode with -n gives path:line:text lines", async () => {
  await withKitProject(PROJECT, async (p) => {
    const result = ran(
      await p.call("Grep", { pattern: "export", output_mode: "content", "-n": true }),
    );
    const content = "src/a.ts:1:export const a = 1;\nsrc/a.ts:2:export const b = 1;";
    assertJson(result.rawOutput, {
      mode: "content",
      numFiles: 0,
      filenames: [],
      content,
      numLines: 2,
      totalLines: 2,
    });
    assertEquals(result.modelText, content);
  });
});

Deno.test("Grep with head_limit shows one page and says which", async () => {
  await withKitProject(PROJECT, async (p) => {
    const result = ran(
      await p.call("Grep", { pattern: "export", output_mode: "content", head_limit: 1 }),
    );
    assertEquals(
      result.modelText,
      "src/a.ts:1:export const a = 1;\n\n[Showing results with pagination = limit: 1]",
    );
    assertEquals([result.rawOutput.numLines, result.rawOutput.totalLines], [1, 2]);
  });
});

Deno.test("Grep in count mode counts per file and in all", async () => {
  await withKitProject(PROJECT, async (p) => {
    const result = ran(await p.call("Grep", { pattern: "export", output_mode: "count" }));
    assertEquals(result.modelText, "src/a.ts:2\n\nFound 2 total occurrences across 1 file.");
  });
});
