import { assertEquals } from "../helpers/assert.ts";
import { type PatchHunk, structuredPatch } from "../../src/agent/files/structured_patch.ts";

Deno.test("an overwrite of a one-line file is one hunk with the old line and the new", () => {
  assertEquals(structuredPatch("other content\n", "overwritten\n"), [
    {
      oldStart: 1,
      oldLines: 1,
      newStart: 1,
      newLines: 1,
      lines: ["-other content", "+overwritten"],
    },
  ]);
});

Deno.test("a changed middle line is shown with its context, as Claude Code's Edit reports it", () => {
  assertEquals(structuredPatch("alpha\nbeta\nalpha\n", "alpha\nBETA\nalpha\n"), [
    {
      oldStart: 1,
      oldLines: 3,
      newStart: 1,
      newLines: 3,
      lines: [" alpha", "-beta", "+BETA", " alpha"],
    },
  ]);
  assertEquals(structuredPatch("alpha\nBETA\nalpha\n", "ALPHA\nBETA\nALPHA\n"), [
    {
      oldStart: 1,
      oldLines: 3,
      newStart: 1,
      newLines: 3,
      lines: ["-alpha", "+ALPHA", " BETA", "-alpha", "+ALPHA"],
    },
  ]);
});

Deno.test("a file made from nothing is one hunk of added lines; identical texts have none", () => {
  assertEquals(structuredPatch("", "made by edit\n"), [
    { oldStart: 1, oldLines: 0, newStart: 1, newLines: 1, lines: ["+made by edit"] },
  ]);
  assertEquals(structuredPatch("same\n", "same\n"), []);
  assertEquals(structuredPatch("", ""), []);
});

Deno.test("changes far apart are separate hunks with three lines of context each", () => {
  const lines = Array.from({ length: 30 }, (_, i) => `l${i + 1}\n`);
  const old = lines.join("");
  const changed = old.replace("l5\n", "L5\n").replace("l25\n", "");
  assertEquals(structuredPatch(old, changed), [
    {
      oldStart: 2,
      oldLines: 7,
      newStart: 2,
      newLines: 7,
      lines: [" l2", " l3", " l4", "-l5", "+L5", " l6", " l7", " l8"],
    },
    {
      oldStart: 22,
      oldLines: 7,
      newStart: 22,
      newLines: 6,
      lines: [" l22", " l23", " l24", "-l25", " l26", " l27", " l28"],
    },
  ]);
});

Deno.test("a last line without a newline is marked as in a unified diff", () => {
  assertEquals(structuredPatch("a\nb", "a\nc"), [
    {
      oldStart: 1,
      oldLines: 2,
      newStart: 1,
      newLines: 2,
      lines: [" a", "-b", "\\ No newline at end of file", "+c", "\\ No newline at end of file"],
    },
  ]);
});

/** Rebuilds the new text from the old one and the hunks. */
function applyPatch(old: string, hunks: readonly PatchHunk[]): string {
  const lines = old === "" ? [] : old.replace(/\n$/, "").split("\n");
  const out: string[] = [];
  let next = 0;
  for (const hunk of hunks) {
    while (next < hunk.oldStart - 1) out.push(lines[next++]!);
    for (const line of hunk.lines) {
      if (line[0] === " ") out.push(lines[next++]!);
      else if (line[0] === "-") next += 1;
      else out.push(line.slice(1));
    }
  }
  while (next < lines.length) out.push(lines[next++]!);
  return out.map((line) => `${line}\n`).join("");
}

Deno.test("the hunks turn the old text into the new with the fewest changed lines", () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const text = () =>
    Array.from({ length: Math.floor(random() * 12) }, () => "abc"[Math.floor(random() * 3)] + "\n")
      .join("");
  for (let round = 0; round < 300; round++) {
    const [a, b] = [text(), text()];
    const hunks = structuredPatch(a, b, Math.floor(random() * 4));
    assertEquals(applyPatch(a, hunks), b, JSON.stringify({ a, b, hunks }));
    const A = a.split("\n").slice(0, -1);
    const B = b.split("\n").slice(0, -1);
    const lcs = Array.from({ length: A.length + 1 }, () => new Array<number>(B.length + 1).fill(0));
    for (let x = A.length - 1; x >= 0; x--) {
      for (let y = B.length - 1; y >= 0; y--) {
        lcs[x]![y] = A[x] === B[y]
          ? lcs[x + 1]![y + 1]! + 1
          : Math.max(lcs[x + 1]![y]!, lcs[x]![y + 1]!);
      }
    }
    const changed = hunks.flatMap((hunk) => hunk.lines).filter((line) => line[0] !== " ").length;
    assertEquals(changed, A.length + B.length - 2 * lcs[0]![0]!, JSON.stringify({ a, b }));
  }
});
