import { assert, assertEquals } from "../helpers/assert.ts";
import { containsLiteral, requiredLiteral } from "../../src/agent/search/grep_required_literal.ts";

Deno.test("the required text is the longest certain run of plain characters", () => {
  const cases: [string, string | undefined][] = [
    ["needle_[0-9]+", "needle_"],
    ["function\\s+foo", "function"],
    ["\\bparseArgs\\b", "parseArgs"],
    ["import .* from", "import "],
    ["console\\.log\\(", "console.log("],
    ["[A-Z]+Error", "Error"],
    ["^export const", "export const"],
    ["(?:async )?function", "function"],
    ["colou?r_name", "r_name"],
    ["abcd+", "abc"],
    ["abcd{2}x", "abc"],
    ["abc*?def", "def"],
    ["interface{}", "interface"],
    ["TODO(\\w+):", "TODO"],
    // Nothing certain enough.
    ["foo|barbaz", undefined],
    ["[|]needle", undefined],
    ["ab", undefined],
    ["a?b?c?d?", undefined],
    ["(needle)", undefined],
    ["\\x41BCD", undefined],
    ["\\1abcd", undefined],
    ["caf\u00e9s", "caf"],
  ];
  for (const [pattern, expected] of cases) {
    assertEquals(requiredLiteral(pattern, "m"), expected, pattern);
  }
  assertEquals(requiredLiteral("needle", "im"), undefined, "ignoring case");
});

/** Small patterns over `a`, `b`, `c` with every kind of atom and quantifier the scan reads. */
function randomPattern(random: () => number): string {
  const atoms = ["a", "b", "c", "ab", "\\.", ".", "[ab]", "(a)", "(?:bc)", "\\b", "\\w", "^", "$"];
  const quantifiers = ["", "", "", "*", "+", "?", "{2}", "{0,1}", "*?"];
  let pattern = "";
  const length = 1 + Math.floor(random() * 6);
  for (let i = 0; i < length; i++) {
    pattern += atoms[Math.floor(random() * atoms.length)]!;
    const quantifier = quantifiers[Math.floor(random() * quantifiers.length)]!;
    if (!/[\^$]$|\\b$/.test(pattern)) pattern += quantifier;
  }
  return pattern;
}

Deno.test("every text a pattern matches holds its required text", () => {
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const texts = Array.from({ length: 200 }, () => {
    const length = Math.floor(random() * 12);
    return Array.from({ length }, () => "abc. \n"[Math.floor(random() * 6)]).join("");
  });
  let checked = 0;
  for (let n = 0; n < 2000; n++) {
    const pattern = randomPattern(random);
    let regex: RegExp;
    try {
      regex = new RegExp(pattern, "m");
    } catch {
      continue;
    }
    // Any length, so that short patterns are checked too.
    const literal = requiredLiteral(pattern, "m", 1);
    if (literal === undefined) continue;
    for (const text of texts) {
      if (regex.test(text)) {
        assert(text.includes(literal), `/${pattern}/ matches ${JSON.stringify(text)}: ${literal}`);
        checked += 1;
      }
    }
  }
  assert(checked > 1000, `only ${checked} matches checked`);
});

Deno.test("the byte check finds the literal anywhere, and gives up rather than go quadratic", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  assertEquals(containsLiteral(bytes("xx needle yy"), bytes("needle")), true);
  assertEquals(containsLiteral(bytes("needl needle"), bytes("needle")), true);
  assertEquals(containsLiteral(bytes("needl"), bytes("needle")), false);
  assertEquals(containsLiteral(bytes("é needle"), bytes("needle")), true);
  const worst = bytes("a".repeat(10_000));
  assertEquals(containsLiteral(worst, bytes("a".repeat(50) + "b")), undefined);
});
