import { assert, assertEquals, assertLess, assertStringIncludes } from "../helpers/assert.ts";
import { formatGrepContent, grepFiles } from "../../src/agent/search/file_grep.ts";
import type { GrepOperation } from "../../src/agent/tools/tool_operation.ts";
import { withTempDir } from "./temp_dir.ts";

function grep(pattern: string, options: Partial<GrepOperation> = {}): GrepOperation {
  return {
    capability: "fs_grep",
    pattern,
    outputMode: "files_with_matches",
    ignoreCase: false,
    lineNumbers: false,
    before: 0,
    after: 0,
    multiline: false,
    offset: 0,
    ...options,
  };
}

async function ageInOrder(dir: string, paths: readonly string[]): Promise<void> {
  for (const [i, path] of paths.entries()) {
    const time = new Date(Date.UTC(2024, 0, 1, 0, 0, i));
    await Deno.utime(`${dir}/${path}`, time, time);
  }
}

const PROJECT = {
  "src/a.ts": "export const a = 1;\nexport const b = 1;\n",
  "src/b.py": "def export():\n    pass\n",
  "README.md": "Nothing to see\n",
};

Deno.test("grep finds the files whose text matches, newest first, with counts", async () => {
  await withTempDir(PROJECT, async (dir) => {
    await ageInOrder(dir, ["src/a.ts", "src/b.py", "README.md"]);
    const result = await grepFiles(grep("export"), { cwd: dir, roots: [dir] });
    assertEquals(result.ok && result.files.map((file) => [file.path, file.count]), [
      [`${dir}/src/b.py`, 1],
      [`${dir}/src/a.ts`, 2],
    ]);
    assertEquals(result.ok && result.filesSearched, 3);
    // Lines are only kept for the content mode.
    assertEquals(result.ok && result.files[0]!.lines, []);
  });
});

Deno.test("grep narrows by glob (a name, or a path below the root) and by file type", async () => {
  await withTempDir({ ...PROJECT, "lib/c.ts": "export c\n" }, async (dir) => {
    const paths = async (operation: GrepOperation) => {
      const result = await grepFiles(operation, { cwd: dir, roots: [dir] });
      return result.ok ? result.files.map((file) => file.path).sort() : result.message;
    };
    assertEquals(await paths(grep("export", { glob: "*.ts" })), [
      `${dir}/lib/c.ts`,
      `${dir}/src/a.ts`,
    ]);
    assertEquals(await paths(grep("export", { glob: "src/*" })), [
      `${dir}/src/a.ts`,
      `${dir}/src/b.py`,
    ]);
    assertEquals(await paths(grep("export", { glob: "*.{py,md}" })), [`${dir}/src/b.py`]);
    assertEquals(await paths(grep("export", { fileType: "py" })), [`${dir}/src/b.py`]);
    assertEquals(await paths(grep("export", { fileType: "ts", path: "src" })), [`${dir}/src/a.ts`]);
    const unknown = await paths(grep("export", { fileType: "klingon" }));
    assertStringIncludes(String(unknown), 'Unknown file type "klingon"');
  });
});

Deno.test("grep keeps matching and context lines for content, printed as ripgrep does", async () => {
  const text = "one\nexport two\nthree\nfour\nfive\nsix\nexport seven\n";
  await withTempDir({ "src/x.ts": text }, async (dir) => {
    const result = await grepFiles(
      grep("export", { outputMode: "content", before: 1, after: 1 }),
      { cwd: dir, roots: [dir] },
    );
    if (!result.ok) throw new Error(result.message);
    assertEquals(result.files[0]!.lines, [
      { number: 1, text: "one", match: false },
      { number: 2, text: "export two", match: true },
      { number: 3, text: "three", match: false },
      { number: 6, text: "six", match: false },
      { number: 7, text: "export seven", match: true },
    ]);
    assertEquals(formatGrepContent(result.files, { cwd: dir, lineNumbers: true }), [
      "src/x.ts-1-one",
      "src/x.ts:2:export two",
      "src/x.ts-3-three",
      "--",
      "src/x.ts-6-six",
      "src/x.ts:7:export seven",
    ]);
  });
});

Deno.test("content without context has no separators; without -n no numbers", async () => {
  await withTempDir(PROJECT, async (dir) => {
    const result = await grepFiles(grep("export const", { outputMode: "content" }), {
      cwd: dir,
      roots: [dir],
    });
    if (!result.ok) throw new Error(result.message);
    assertEquals(formatGrepContent(result.files, { cwd: dir, lineNumbers: true }), [
      "src/a.ts:1:export const a = 1;",
      "src/a.ts:2:export const b = 1;",
    ]);
    assertEquals(formatGrepContent(result.files, { cwd: dir, lineNumbers: false }), [
      "src/a.ts:export const a = 1;",
      "src/a.ts:export const b = 1;",
    ]);
  });
});

Deno.test("grep can ignore case, span lines, and search one file", async () => {
  await withTempDir({ "a.txt": "Alpha\nbeta\ngamma\n", "b.txt": "alpha\n" }, async (dir) => {
    const place = { cwd: dir, roots: [dir] };
    const folded = await grepFiles(grep("ALPHA", { ignoreCase: true }), place);
    assertEquals(folded.ok && folded.files.length, 2);
    const spanning = await grepFiles(
      grep("beta.gamma", { multiline: true, outputMode: "content" }),
      place,
    );
    assertEquals(spanning.ok && spanning.files[0]!.lines.map((line) => line.number), [2, 3]);
    const one = await grepFiles(grep("alpha", { path: "b.txt" }), place);
    assertEquals(one.ok && one.files.map((file) => file.path), [`${dir}/b.txt`]);
  });
});

Deno.test("an invalid regular expression is a message saying how to match text", async () => {
  await withTempDir(PROJECT, async (dir) => {
    const result = await grepFiles(grep("foo("), { cwd: dir, roots: [dir] });
    assertEquals(result.ok, false);
    if (!result.ok) {
      assertStringIncludes(result.message, 'Invalid regular expression "foo("');
      assertStringIncludes(result.message, "backslash");
    }
    // What ripgrep takes literally without the unicode flag still works.
    const braces = await grepFiles(grep("interface{}"), { cwd: dir, roots: [dir] });
    assertEquals(braces.ok, true);
  });
});

Deno.test("grep skips binary files, ignored files and symlinks out of the root", async () => {
  await withTempDir({
    "root/.gitignore": "generated/\n",
    "root/generated/g.txt": "needle\n",
    "root/plain.txt": "needle\n",
    "outside/secret.txt": "needle\n",
  }, async (dir) => {
    const root = `${dir}/root`;
    await Deno.writeFile(`${root}/data.bin`, new TextEncoder().encode("needle\0\x01"));
    await Deno.symlink(`${dir}/outside`, `${root}/link`);
    await Deno.symlink(`${dir}/outside/secret.txt`, `${root}/secret-link.txt`);
    const result = await grepFiles(grep("needle"), { cwd: root, roots: [root] });
    assertEquals(result.ok && result.files.map((file) => file.path), [`${root}/plain.txt`]);
    const refused = await grepFiles(grep("needle", { path: `${dir}/outside` }), {
      cwd: root,
      roots: [root],
    });
    assertEquals(refused.ok, false);
    if (!refused.ok) assertStringIncludes(refused.message, "outside the allowed directories");
  });
});

Deno.test("grep says when the walk stopped at its entry cap", async () => {
  const files = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}.txt`, "hit\n"]));
  await withTempDir(files, async (dir) => {
    const result = await grepFiles(grep("hit"), { cwd: dir, roots: [dir], maxEntries: 4 });
    assertEquals(result.ok && [result.files.length, result.walkCapped], [4, true]);
  });
});

Deno.test("each line is matched alone: a lookaround does not see past its line's end", async () => {
  await withTempDir({
    "crlf.txt": "foo\r\nbar\r\n",
    "lf.txt": "x\nbar\n",
    "none.txt": "nothing here\n",
  }, async (dir) => {
    const place = { cwd: dir, roots: [dir] };
    // On the line alone "foo" ends the text (its `\r` dropped) and "bar" starts it.
    const ahead = await grepFiles(grep("foo(?!\\r)"), place);
    assertEquals(ahead.ok && ahead.files.map((file) => file.path), [`${dir}/crlf.txt`]);
    const behind = await grepFiles(grep("(?<!\\n)bar$"), place);
    assertEquals(behind.ok && behind.files.map((file) => file.path).sort(), [
      `${dir}/crlf.txt`,
      `${dir}/lf.txt`,
    ]);
    const anchored = await grepFiles(grep("^bar$", { outputMode: "count" }), place);
    assertEquals(anchored.ok && anchored.files.map((file) => file.count), [1, 1]);
    assertEquals(anchored.ok && anchored.filesSearched, 3);
  });
});

/** Patterns that backtrack without end on a line of 48 `a`s, none a repeated repetition. */
const RUNAWAY_PATTERNS = ["(a|aa)*c", "(.*a){24}x", "a*a*a*a*a*a*a*a*a*a*a*a*b", "(\\w|a)*!"];
const RUNAWAY_LINE = "a".repeat(48) + "\n";

Deno.test("a pattern that backtracks without end is stopped at the deadline, naming the file, while the event loop runs on", async () => {
  await withTempDir({ "a.txt": RUNAWAY_LINE, "b.txt": "bbb\n" }, async (dir) => {
    const place = { cwd: dir, roots: [dir], matchTimeoutMs: 500 };
    let ticks = 0;
    const ticking = setInterval(() => ticks += 1, 20);
    const started = performance.now();
    try {
      const results = await Promise.all(
        RUNAWAY_PATTERNS.map(async (pattern) => {
          const result = await grepFiles(grep(pattern), place);
          return { pattern, result, ms: performance.now() - started };
        }),
      );
      for (const { pattern, result, ms } of results) {
        assertEquals(result.ok, false, pattern);
        if (!result.ok) {
          assertStringIncludes(
            result.message,
            `The pattern "${pattern}" took longer than 0.5 s on "a.txt"`,
          );
          assertStringIncludes(result.message, "simplify it");
        }
        assertLess(ms, 5000, `${pattern} ended ${ms} ms after it started`);
      }
    } finally {
      clearInterval(ticking);
    }
    // 25 ticks if the loop were free all along; none if a match held it.
    assert(ticks > 5, `the event loop ticked ${ticks} times`);
  });
});

Deno.test("a cancel ends a search stuck in a pattern at once", async () => {
  await withTempDir({ "a.txt": RUNAWAY_LINE }, async (dir) => {
    const controller = new AbortController();
    const search = grepFiles(grep("(a|aa)*c"), {
      cwd: dir,
      roots: [dir],
      signal: controller.signal,
      matchTimeoutMs: 60_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const cancelled = performance.now();
    controller.abort();
    const result = await search;
    assertLess(performance.now() - cancelled, 2000);
    assertEquals(result, { ok: false, message: "The search was cancelled" });
  });
});

Deno.test("matching time is the whole search's: files that each take a while add up", async () => {
  // On 32 `a`s, (a|aa)*c tries millions of ways: a file takes far longer to match than the
  // matcher takes to start, so one file alone stays well inside a budget of four times its own
  // search, while forty files together pass it, whatever the machine's load.
  const names = Array.from({ length: 40 }, (_, i) => `f${String(i).padStart(2, "0")}.txt`);
  const files = Object.fromEntries(names.map((name) => [name, "a".repeat(32) + "\n"]));
  await withTempDir(files, async (dir) => {
    const started = performance.now();
    const alone = await grepFiles(grep("(a|aa)*c", { path: "f00.txt" }), {
      cwd: dir,
      roots: [dir],
      matchTimeoutMs: 60_000,
    });
    assertEquals(alone.ok && alone.filesSearched, 1);
    const budget = Math.ceil((performance.now() - started) * 4);
    const all = await grepFiles(grep("(a|aa)*c"), {
      cwd: dir,
      roots: [dir],
      matchTimeoutMs: budget,
    });
    assertEquals(all.ok, false);
    if (!all.ok) {
      const file = /took longer than [\d.]+ s on "(f\d\d\.txt)"/.exec(all.message)?.[1];
      assert(file !== undefined && file !== "f00.txt", all.message);
    }
  });
});

Deno.test("patterns that repeat a repeating group run like any other", async () => {
  await withTempDir({ "a.txt": "call foo.bar.baz(1)\n", "b.txt": "plain\n" }, async (dir) => {
    const place = { cwd: dir, roots: [dir] };
    for (const pattern of ["(\\w+\\.)+\\w+\\(", "(?:o{2,})+", "((ba)+r)+\\."]) {
      const result = await grepFiles(grep(pattern), place);
      assertEquals(result.ok && result.files.map((file) => file.path), [`${dir}/a.txt`], pattern);
    }
  });
});

Deno.test("many files, and one larger than a batch, are all matched and counted, sent or not", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 60; i++) {
    files[`d${i % 3}/f${i}.txt`] = `line\n`.repeat(2000) + (i % 4 === 0 ? "needle\n" : "");
  }
  files["big.txt"] = "x".repeat(100) + "\n" + "needle here\n".repeat(30_000);
  await withTempDir(files, async (dir) => {
    await Deno.writeFile(`${dir}/data.bin`, new Uint8Array([110, 101, 101, 100, 108, 101, 0]));
    await Deno.writeFile(`${dir}/other.bin`, new Uint8Array([1, 0, 2]));
    const expected: Record<string, number> = { "big.txt": 30_000 };
    for (let i = 0; i < 60; i += 4) expected[`d${i % 3}/f${i}.txt`] = 1;
    // "needle" is text every match holds: files without it are not sent to the matcher process.
    for (const pattern of ["needle", "(needle)"]) {
      const result = await grepFiles(grep(pattern, { outputMode: "count" }), {
        cwd: dir,
        roots: [dir],
      });
      if (!result.ok) throw new Error(result.message);
      const counts = Object.fromEntries(
        result.files.map((file) => [file.path.slice(dir.length + 1), file.count]),
      );
      assertEquals(counts, expected, pattern);
      assertEquals(result.filesSearched, 61, pattern);
    }
  });
});

Deno.test("huge context around many matches is shown once per line, not once per match", async () => {
  const text = "x\n".repeat(5000);
  await withTempDir({ "a.txt": text }, async (dir) => {
    const result = await grepFiles(
      grep("x", { outputMode: "content", before: 1_000_000, after: 1_000_000 }),
      { cwd: dir, roots: [dir] },
    );
    assertEquals(result.ok, true);
    if (result.ok) {
      assertEquals(result.files[0]?.count, 5000);
      assertEquals(result.files[0]?.lines.length, 5000);
    }
  });
});
