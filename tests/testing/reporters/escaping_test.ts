import { assertEquals } from "../../helpers/assert.ts";
import {
  annotation,
  escapeData,
  escapeProperty,
} from "../../../src/testing/reporters/github_reporter.ts";
import { xmlAttribute, xmlText } from "../../../src/testing/reporters/junit_reporter.ts";
import { yamlLines } from "../../../src/testing/reporters/tap_reporter.ts";

Deno.test("GitHub workflow commands: %, CR and LF in messages; also : and , in properties", () => {
  assertEquals(escapeData("100%\r\nnext: a, b"), "100%25%0D%0Anext: a, b");
  assertEquals(escapeProperty("100%\r\nnext: a, b"), "100%25%0D%0Anext%3A a%2C b");
  assertEquals(
    annotation({ file: "a,b.jsonc", line: 3, title: "x: y" }, "one\ntwo"),
    "::error file=a%2Cb.jsonc,line=3,title=x%3A y::one%0Atwo",
  );
});

Deno.test("XML: markup escaped, whitespace kept in attributes, forbidden characters spelled out", () => {
  assertEquals(xmlText(`a < b && c > "d"\r\n`), `a &lt; b &amp;&amp; c &gt; "d"&#13;\n`);
  assertEquals(xmlAttribute(`"x"\n\ty'`), `&quot;x&quot;&#10;&#9;y'`);
  assertEquals(xmlText("\x1b[31m\x00\ud800ok\u{1F600}"), "\\u001b[31m\\u0000\\ud800ok\u{1F600}");
});

Deno.test("TAP YAML: literal blocks for safe multi-line texts, JSON for everything else", () => {
  assertEquals(
    yamlLines({ a: "one\ntwo", b: "end\n", c: " lead\nx", d: "one", e: 1, f: null }, "  "),
    [
      "  a: |-",
      "    one",
      "    two",
      "  b: |",
      "    end",
      '  c: " lead\\nx"',
      '  d: "one"',
      "  e: 1",
      "  f: null",
    ],
  );
  assertEquals(yamlLines({ a: "x\n\ny\n" }, ""), ["a: |", "  x", "", "  y"]);
  assertEquals(yamlLines({ a: "x\n\n", b: "\nx", c: "\r\n" }, ""), [
    'a: "x\\n\\n"',
    "b: |-",
    "",
    "  x",
    'c: "\\r\\n"',
  ]);
  assertEquals(yamlLines({ list: [{ p: "a", q: 1 }, {}] }, "  "), [
    "  list:",
    '    - p: "a"',
    "      q: 1",
    "    - {}",
  ]);
});
