/**
 * Text of the kinds an agent's context fills with, for measuring token counts: prose, code,
 * numeric tool output, JSON, and text beyond ASCII. Fixed (numbers from a seeded generator), so
 * a count measured on one machine is the count on every other.
 */
import { mulberry32 } from "./mulberry32.ts";

export type SampleKind = "prose" | "code" | "numbers" | "json" | "non-ascii";

const PROSE_PARAGRAPH =
  "The agent reads the project before it changes anything. It opens the files the user " +
  "named, looks for the tests that cover them, and runs those tests once to see where they " +
  "stand. When a test fails, it reads the failure to the end: the last lines usually say what " +
  "went wrong, while the first ones only repeat the command. Then it writes the smallest change " +
  "that explains the failure, runs the tests again, and reports what it did in a few plain " +
  "sentences, naming each file it touched and why. If the change needs a decision the user " +
  "has not made, it stops and asks, because a guess that looks right is worse than a question.";

const CODE_SNIPPET = `/** The first line of each file that matches, with its number. */
export async function firstMatches(
  paths: readonly string[],
  pattern: RegExp,
): Promise<Map<string, { line: number; text: string }>> {
  const found = new Map<string, { line: number; text: string }>();
  for (const path of paths) {
    const text = await Deno.readTextFile(path);
    const lines = text.split("\\n");
    for (let index = 0; index < lines.length; index++) {
      if (pattern.test(lines[index] ?? "")) {
        found.set(path, { line: index + 1, text: lines[index]!.trim() });
        break;
      }
    }
  }
  return found;
}
`;

/** What a disk-usage or benchmark command prints: sizes, percentages, hashes and times. */
function numericOutput(lines: number): string {
  const random = mulberry32(28);
  const rows: string[] = [];
  for (let index = 0; index < lines; index++) {
    const size = Math.floor(random() * 1_000_000);
    const share = (random() * 100).toFixed(2);
    const hash = Math.floor(random() * 0xffffffff).toString(16).padStart(8, "0");
    const seconds = String(Math.floor(random() * 60)).padStart(2, "0");
    rows.push(`${size}\t${share}%\t${hash}\t2025-11-04T12:33:${seconds}Z`);
  }
  return rows.join("\n");
}

function jsonOutput(entries: number): string {
  const random = mulberry32(7);
  const items = Array.from({ length: entries }, (_, index) => ({
    id: index + 1,
    name: `item-${index + 1}`,
    tags: ["alpha", "beta", "gamma"].slice(0, 1 + (index % 3)),
    price: Math.round(random() * 10_000) / 100,
    active: random() > 0.5,
  }));
  return JSON.stringify({ items, total: entries }, null, 2);
}

const NON_ASCII =
  "Überprüfe die Datei „Änderungen.md“ — déjà vu, naïve café. 日本語のテキストを読み込みます。" +
  "Проверьте журнал сборки. ✓ готово 🎉 ½ € ¥ → ←";

/** About `chars` characters of `kind`. */
export function sampleText(kind: SampleKind, chars = 8000): string {
  const repeated = (unit: string, separator: string) =>
    Array.from({ length: Math.ceil(chars / unit.length) }, () => unit).join(separator)
      .slice(0, chars);
  switch (kind) {
    case "prose":
      return repeated(PROSE_PARAGRAPH, "\n\n");
    case "code":
      return repeated(CODE_SNIPPET, "\n");
    case "numbers":
      return numericOutput(Math.ceil(chars / 40)).slice(0, chars);
    case "json":
      return jsonOutput(Math.ceil(chars / 110)).slice(0, chars);
    case "non-ascii":
      return repeated(NON_ASCII, "\n");
    default:
      return kind satisfies never;
  }
}

export const SAMPLE_KINDS: readonly SampleKind[] = [
  "prose",
  "code",
  "numbers",
  "json",
  "non-ascii",
];
