import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { GLOB_LIMIT, GREP_DEFAULT_LIMIT } from "../../src/agent/tools/llama_search_tools.ts";
import { localDeps, runLlamaTool as run } from "./llama_kit_deps.ts";
import { withTempDir } from "./temp_dir.ts";

const PROJECT = {
  "src/a.ts": "export const a = 1;\nexport const b = 1;\n",
  "src/b.py": "print(1)\n",
};

Deno.test("fs_glob lists matching files relative to the cwd", async () => {
  await withTempDir(PROJECT, async (dir) => {
    const found = await run("fs_glob", { pattern: "**/*.ts" }, localDeps(dir));
    assertEquals(found.status, "completed");
    assertEquals(found.modelText, "src/a.ts");
    assertEquals(found.rawOutput, { filenames: ["src/a.ts"], numFiles: 1, truncated: false });
    const none = await run("fs_glob", { pattern: "**/*.rs" }, localDeps(dir));
    assertEquals(none.modelText, "No files found");
    assertEquals(none.rawOutput, { filenames: [], numFiles: 0, truncated: false });
  });
});

Deno.test("fs_glob shows at most its limit and says how many matched", async () => {
  const files = Object.fromEntries(
    Array.from({ length: GLOB_LIMIT + 5 }, (_, i) => [`f${String(i).padStart(3, "0")}.txt`, ""]),
  );
  await withTempDir(files, async (dir) => {
    const found = await run("fs_glob", { pattern: "*.txt" }, localDeps(dir));
    assertEquals(found.modelText.split("\n").length, GLOB_LIMIT + 1);
    assertStringIncludes(
      found.modelText,
      `[${GLOB_LIMIT + 5} files matched; only the first ${GLOB_LIMIT} are shown`,
    );
    assertEquals(found.rawOutput.truncated, true);
    assertEquals(found.rawOutput.numFiles, GLOB_LIMIT);
  });
});

Deno.test("fs_glob outside the roots fails with the reason", async () => {
  await withTempDir(PROJECT, async (dir) => {
    const refused = await run("fs_glob", { pattern: "*", path: "/etc" }, localDeps(dir));
    assertEquals(refused.status, "failed");
    assertStringIncludes(refused.modelText, 'Cannot search "/etc"');
  });
});

Deno.test("fs_grep lists the matching files by default", async () => {
  await withTempDir(PROJECT, async (dir) => {
    const found = await run("fs_grep", { pattern: "export", path: dir }, localDeps(dir));
    assertEquals(found.modelText, "Found 1 file\nsrc/a.ts");
    assertEquals(found.rawOutput, {
      mode: "files_with_matches",
      filenames: ["src/a.ts"],
      numFiles: 1,
    });
    const none = await run("fs_grep", { pattern: "nowhere" }, localDeps(dir));
    assertEquals(none.modelText, "No files found");
  });
});

Deno.test("fs_grep content mode gives ripgrep's lines, numbered by default", async () => {
  await withTempDir(PROJECT, async (dir) => {
    const found = await run(
      "fs_grep",
      { pattern: "export", output_mode: "content" },
      localDeps(dir),
    );
    assertEquals(found.modelText, "src/a.ts:1:export const a = 1;\nsrc/a.ts:2:export const b = 1;");
    assertEquals(found.rawOutput, {
      mode: "content",
      filenames: ["src/a.ts"],
      numFiles: 1,
      content: "src/a.ts:1:export const a = 1;\nsrc/a.ts:2:export const b = 1;",
      numLines: 2,
    });
    const plain = await run(
      "fs_grep",
      { pattern: "const b", output_mode: "content", "-n": "false", "-B": "1" },
      localDeps(dir),
    );
    assertEquals(plain.modelText, "src/a.ts-export const a = 1;\nsrc/a.ts:export const b = 1;");
  });
});

Deno.test("fs_grep count mode counts matching lines per file", async () => {
  await withTempDir(PROJECT, async (dir) => {
    const found = await run(
      "fs_grep",
      { pattern: "export|print", output_mode: "count" },
      localDeps(dir),
    );
    assertEquals(found.status, "completed");
    assertStringIncludes(found.modelText, "src/a.ts:2");
    assertStringIncludes(found.modelText, "src/b.py:1");
    assertStringIncludes(found.modelText, "Found 3 matching lines in 2 files");
  });
});

Deno.test("fs_grep cuts long output at its default limit and pages with offset", async () => {
  const lines = Array.from({ length: GREP_DEFAULT_LIMIT + 10 }, (_, i) => `hit ${i}\n`).join("");
  await withTempDir({ "many.txt": lines }, async (dir) => {
    const first = await run("fs_grep", { pattern: "hit", output_mode: "content" }, localDeps(dir));
    assertEquals(first.rawOutput.numLines, GREP_DEFAULT_LIMIT);
    assertStringIncludes(
      first.modelText,
      `[showing lines 1-${GREP_DEFAULT_LIMIT} of ${GREP_DEFAULT_LIMIT + 10}: use offset ` +
        `${GREP_DEFAULT_LIMIT} to see more]`,
    );
    const rest = await run(
      "fs_grep",
      { pattern: "hit", output_mode: "content", offset: GREP_DEFAULT_LIMIT, head_limit: 5 },
      localDeps(dir),
    );
    assertEquals(rest.rawOutput.numLines, 5);
    assert(
      rest.modelText.startsWith(`many.txt:${GREP_DEFAULT_LIMIT + 1}:hit ${GREP_DEFAULT_LIMIT}`),
    );
  });
});

Deno.test("fs_grep with an invalid pattern or input fails with a message", async () => {
  await withTempDir(PROJECT, async (dir) => {
    const bad = await run("fs_grep", { pattern: "(" }, localDeps(dir));
    assertEquals(bad.status, "failed");
    assertStringIncludes(bad.modelText, 'Invalid regular expression "("');
    const mode = await run("fs_grep", { pattern: "x", output_mode: "lines" }, localDeps(dir));
    assertStringIncludes(mode.modelText, '"output_mode" must be one of "content"');
  });
});
