/**
 * Every reporter renders the same hand-built run (a passing case, a failing event case with a
 * reason and a regex mismatch, a failing session case with a files mismatch and two answered
 * shell commands, a case that could not run, an invalid scenario file) and is compared with its golden file. Regenerate them with
 * `UPDATE_GOLDEN=1 deno test --allow-all tests/testing/reporters/`.
 */
import { assert, assertEquals, AssertionError } from "../../helpers/assert.ts";
import type { CaseResult, ExplainedFiring } from "../../../src/testing/scenarios/case_result.ts";
import type { ReporterOptions, RunResult } from "../../../src/testing/scenarios/scenario_run.ts";
import {
  REPORTER_NAMES,
  type ReporterName,
  REPORTERS,
} from "../../../src/testing/reporters/reporters.ts";
import { diffLines, markLine } from "../../../src/testing/reporters/text_diff.ts";

const GOLDEN_DIR = new URL("./golden/", import.meta.url);
const CWD = "/work/repo";
const GUARD = `${CWD}/.claude/hooks-tests/guard.jsonc`;
const SESSION = `${CWD}/.claude/hooks-tests/session.jsonc`;
const BROKEN = `${CWD}/.claude/hooks-tests/broken.jsonc`;

const PASSED_EXPLAIN: ExplainedFiring = {
  event: "PreToolUse",
  matcherValue: "shell",
  registrations: [
    {
      id: "project:PreToolUse:0:0",
      summary: "$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh",
      source: `${CWD}/.claude/settings.json:6`,
      matched: true,
      why: 'matcher "shell" matches "shell"',
      result: {
        kind: "exited",
        exitCode: 0,
        signal: null,
        durationMs: 8,
        stdout: "",
        stderr: "",
        outcome: "success, no output",
      },
    },
    {
      id: "project:PreToolUse:1:0",
      summary: "npx prettier --write",
      source: `${CWD}/.claude/settings.json:12`,
      matched: false,
      why: 'matcher "Edit|Write" does not match "shell"',
    },
  ],
  decidedBy: {},
};

const FAILED_EXPLAIN: ExplainedFiring = {
  ...PASSED_EXPLAIN,
  registrations: [{
    ...PASSED_EXPLAIN.registrations[0]!,
    result: {
      kind: "exited",
      exitCode: 2,
      signal: null,
      durationMs: 21,
      stdout: "",
      stderr: "Refusing to run rm -rf\nsee policy.md\n",
      outcome: "blocks (exit 2): Refusing to run rm -rf",
    },
  }, PASSED_EXPLAIN.registrations[1]!],
  decidedBy: { decision: "project:PreToolUse:0:0", reason: ["project:PreToolUse:0:0"] },
};

const PASSED: CaseResult = {
  name: "allows ls",
  kind: "event",
  location: { file: GUARD, line: 5, pointer: "/cases/0" },
  status: "passed",
  durationMs: 12,
  failures: [],
  explain: [PASSED_EXPLAIN],
};

/** Its name holds every character some format must escape. */
const FAILED_EVENT: CaseResult = {
  name: 'denies rm -rf: 100% sure, #1 <root> & "quotes"',
  kind: "event",
  location: { file: GUARD, line: 14, pointer: "/cases/1" },
  status: "failed",
  durationMs: 31.4,
  failures: [
    {
      path: "expect.reason",
      message: 'Expected the reason "Refusing to run rm -rf: use trash instead", but it is ' +
        '"Refusing to run rm -rf"',
      expected: "Refusing to run rm -rf: use trash instead",
      actual: "Refusing to run rm -rf",
      line: 19,
    },
    {
      path: "expect.context",
      message: 'Expected the context /^Policy: .*trash/, but it is "Policy, v2\\nuse rm carefully"',
      expected: { matches: "^Policy: .*trash" },
      actual: "Policy, v2\nuse rm carefully",
      line: 20,
    },
  ],
  explain: [FAILED_EXPLAIN],
};

const ERRORED: CaseResult = {
  name: "bad payload",
  kind: "event",
  location: { file: GUARD, line: 30, pointer: "/cases/2" },
  status: "error",
  durationMs: 0,
  failures: [],
  error: 'Cannot build the PreToolUse payload: "tool_input" must be an object',
  explain: [],
};

const FAILED_SESSION: CaseResult = {
  name: "writes the changelog",
  kind: "session",
  location: { file: SESSION, line: 3, pointer: "/cases/0" },
  status: "failed",
  durationMs: 250,
  failures: [{
    path: "expect.files",
    message: 'Project files after the session differ: "CHANGELOG.md", "tmp.txt"',
    expected: { "CHANGELOG.md": "# Changes\n\n- added hooks\n- added tests\n", "tmp.txt": null },
    actual: { "CHANGELOG.md": "# Changes\n\n- added hook\n- added tests\n", "tmp.txt": "scratch" },
    line: 12,
  }],
  // Answered by the scripted terminal: reports must not let them pass for commands that ran.
  shellCalls: [
    { command: "git status --short", executed: false, exitCode: 0 },
    { command: "rm -rf tmp.txt", executed: false, exitCode: 1 },
  ],
};

/** A file's cases out of order (as they finished): reporters show them by line. */
const RUN: RunResult = {
  results: [ERRORED, FAILED_EVENT, PASSED, FAILED_SESSION],
  problems: [{
    file: BROKEN,
    line: 4,
    column: 16,
    pointer: "/cases/0/event",
    message: 'Invalid scenario: "event" must be one of "PreToolUse", "PostToolUse", "Stop" ' +
      '(got "PreToolUsee")',
  }],
  summary: { passed: 1, failed: 2, errors: 1, durationMs: 412 },
};

const PASSING_RUN: RunResult = {
  results: [PASSED],
  problems: [],
  summary: { passed: 1, failed: 0, errors: 0, durationMs: 15 },
};

const EXTENSIONS: Readonly<Record<ReporterName, string>> = {
  default: "txt",
  tap: "tap",
  junit: "xml",
  json: "json",
  github: "txt",
};

function render(
  name: ReporterName,
  run: RunResult,
  options: Partial<ReporterOptions> = {},
): string {
  let text = "";
  const reporter = REPORTERS[name]({
    write: (chunk) => (text += chunk),
    color: false,
    explain: false,
    cwd: CWD,
    ...options,
  });
  reporter.onRunStart?.({ files: 2, cases: run.results.length });
  for (const result of run.results) reporter.onCaseEnd?.(result);
  reporter.onRunEnd(run);
  return text;
}

/** Compares `actual` with `golden/<name>`, or writes it there under `UPDATE_GOLDEN=1`. */
async function assertGolden(name: string, actual: string): Promise<void> {
  const url = new URL(name, GOLDEN_DIR);
  if (Deno.env.get("UPDATE_GOLDEN") === "1") {
    await Deno.writeTextFile(url, actual);
    return;
  }
  let expected: string;
  try {
    expected = await Deno.readTextFile(url);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new AssertionError(`Golden file "golden/${name}" is missing: run with UPDATE_GOLDEN=1`);
  }
  if (actual === expected) return;
  const diff = diffLines(expected.split("\n"), actual.split("\n")).map(markLine);
  throw new AssertionError(
    `Output differs from "golden/${name}" (- golden, + actual); rerun with UPDATE_GOLDEN=1 if ` +
      `the change is intended:\n${diff.join("\n")}`,
  );
}

for (const name of REPORTER_NAMES) {
  Deno.test(`${name} reporter: a run with failures, an error and an invalid file`, async () => {
    await assertGolden(`${name}.${EXTENSIONS[name]}`, render(name, RUN));
  });
  Deno.test(`${name} reporter: --explain`, async () => {
    await assertGolden(`${name}_explain.${EXTENSIONS[name]}`, render(name, RUN, { explain: true }));
  });
  Deno.test(`${name} reporter: a run where everything passed`, async () => {
    await assertGolden(`${name}_passing.${EXTENSIONS[name]}`, render(name, PASSING_RUN));
  });
}

Deno.test("default reporter: colors and a live count only when color is on", async () => {
  const colored = render("default", RUN, { color: true });
  await assertGolden(
    "default_color.txt",
    colored.replaceAll("\x1b", "<ESC>").replaceAll("\r", "<CR>"),
  );
  assert(!render("default", RUN).includes("\x1b"), "no escape codes without color");
});

Deno.test("json reporter: one document with the summary, problems and results", () => {
  const document = JSON.parse(render("json", RUN));
  assertEquals(Object.keys(document), ["cwd", "summary", "problems", "results"]);
  assertEquals(document.summary, RUN.summary);
  assertEquals(
    document.results.map((r: CaseResult) => r.name),
    [PASSED.name, FAILED_EVENT.name, ERRORED.name, FAILED_SESSION.name],
  );
  assertEquals(document.results[0].explain, undefined);
  assertEquals(JSON.parse(render("json", RUN, { explain: true })).results[0].explain, [
    PASSED_EXPLAIN,
  ]);
});

Deno.test("junit reporter: the output is well-formed XML with escaped names", () => {
  const xml = render("junit", RUN, { explain: true });
  assertWellFormedXml(xml);
  assert(xml.includes('name="denies rm -rf: 100% sure, #1 &lt;root&gt; &amp; &quot;quotes&quot;"'));
  const weird = render("junit", {
    ...PASSING_RUN,
    results: [{
      ...FAILED_SESSION,
      failures: [{ ...FAILED_SESSION.failures[0]!, message: "\x1b[31mred\x1b[0m ]]> \ud800" }],
    }],
  });
  assertWellFormedXml(weird);
  assert(weird.includes("\\u001b[31mred\\u001b[0m ]]&gt; \\ud800"), weird);
});

Deno.test("tap reporter: a test point per case and per invalid file, after a plan", () => {
  const lines = render("tap", RUN).split("\n");
  assertEquals(lines.slice(0, 2), ["TAP version 13", "1..5"]);
  const points = lines.filter((l) => /^(not )?ok \d+ /.test(l)).map((l) => l.split(" - ")[0]);
  assertEquals(points, ["not ok 1", "ok 2", "not ok 3", "not ok 4", "not ok 5"]);
});

Deno.test("github reporter: an annotation per failed expectation at its line, then shell commands", () => {
  const lines = render("github", RUN).trimEnd().split("\n");
  assertEquals(lines.length, 8);
  assertEquals(
    lines.slice(0, 5).map((l) => l.slice(0, l.indexOf("title="))),
    [
      "::error file=.claude/hooks-tests/broken.jsonc,line=4,col=16,",
      "::error file=.claude/hooks-tests/guard.jsonc,line=19,",
      "::error file=.claude/hooks-tests/guard.jsonc,line=20,",
      "::error file=.claude/hooks-tests/guard.jsonc,line=30,",
      "::error file=.claude/hooks-tests/session.jsonc,line=12,",
    ],
  );
  assert(
    lines[1]!.includes(
      'title=denies rm -rf%3A 100%25 sure%2C #1 <root> & "quotes"%3A expect.reason::',
    ),
  );
  assert(!lines.slice(0, 5).some((l) => l.includes("\n") || l.includes("\r")));
  assertEquals(lines.slice(5, 7), [
    ".claude/hooks-tests/session.jsonc > writes the changelog: shell answered, not run: " +
    "git status --short → exit 0",
    ".claude/hooks-tests/session.jsonc > writes the changelog: shell answered, not run: " +
    "rm -rf tmp.txt → exit 1",
  ]);
  assertEquals(lines[7], "1 passed, 3 failed (1 error), 1 invalid file in 0.41 s");
});

/**
 * A small well-formedness check (no XML parser is available offline): one root, balanced tags,
 * quoted attributes without raw `<` or `&`, only the five named or numeric entity references,
 * and no character XML 1.0 forbids.
 */
function assertWellFormedXml(xml: string): void {
  // deno-lint-ignore no-control-regex
  assert(!/[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/.test(xml), "forbidden character in XML");
  assert(
    !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(xml),
    "lone surrogate",
  );
  const body = xml.replace(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n/, "");
  const stack: string[] = [];
  let roots = 0;
  const token =
    /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)>|([^<]+)|(<)/gy;
  for (const match of body.matchAll(token)) {
    const [, closing, name, attrs, selfClosing, text, stray] = match;
    assert(stray === undefined, `stray "<" at ${match.index}`);
    const checked = text ?? attrs ?? "";
    assert(
      !/&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(checked),
      `bad "&" at ${match.index}`,
    );
    if (text !== undefined) {
      assert(stack.length > 0 || text.trim() === "", `text outside the root at ${match.index}`);
      continue;
    }
    if (closing) {
      assertEquals(stack.pop(), name, `closing tag at ${match.index}`);
    } else {
      if (stack.length === 0) roots++;
      if (!selfClosing) stack.push(name!);
    }
  }
  assertEquals(stack, [], "unclosed tags");
  assertEquals(roots, 1, "one root element");
}
