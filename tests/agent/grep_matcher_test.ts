import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { REPO_ROOT } from "../helpers/run_cli.ts";
import {
  GrepMatcher,
  type GrepMatcherOptions,
  type MatchingOutcome,
} from "../../src/agent/search/grep_matcher.ts";
import { matcherCommand } from "../../src/agent/search/grep_matcher_command.ts";
import { GREP_MATCHER_ARGUMENT } from "../../src/agent/search/grep_matcher_process.ts";
import type { MatchSpec } from "../../src/agent/search/grep_text_match.ts";

const encoder = new TextEncoder();

function spec(source: string, options: Partial<MatchSpec> = {}): MatchSpec {
  return {
    source,
    flags: "m",
    multiline: false,
    before: 0,
    after: 0,
    keepLines: false,
    ...options,
  };
}

/** Matches `files` (path → text, or bytes) with one matcher, always closed. */
async function matchAll(
  matchSpec: MatchSpec,
  files: Readonly<Record<string, string | Uint8Array>>,
  options: Partial<GrepMatcherOptions> = {},
): Promise<MatchingOutcome> {
  const matcher = new GrepMatcher(matchSpec, { cwd: REPO_ROOT, timeoutMs: 10_000, ...options });
  try {
    for (const [path, content] of Object.entries(files)) {
      const bytes = typeof content === "string" ? encoder.encode(content) : content;
      await matcher.add({ path, mtimeMs: 0 }, bytes);
    }
    return await matcher.finish();
  } finally {
    await matcher.close();
  }
}

Deno.test("the matcher process answers for every file in order; a binary file is not searched", async () => {
  const outcome = await matchAll(spec("b+", { keepLines: true, after: 1 }), {
    "one.txt": "abc\nxyz\n",
    "two.bin": new Uint8Array([98, 0, 98]),
    "three.txt": "nothing\n",
    "four.txt": "bb\r\nlast\n",
  });
  assertEquals(outcome, {
    ok: true,
    files: [
      {
        path: "one.txt",
        mtimeMs: 0,
        count: 1,
        lines: [{ number: 1, text: "abc", match: true }, { number: 2, text: "xyz", match: false }],
      },
      {
        path: "four.txt",
        mtimeMs: 0,
        count: 1,
        lines: [{ number: 1, text: "bb", match: true }, { number: 2, text: "last", match: false }],
      },
    ],
    filesSearched: 3,
  });
});

Deno.test("matching time runs only while files wait for their answers", async () => {
  const matcher = new GrepMatcher(spec("x"), { cwd: REPO_ROOT, timeoutMs: 300 });
  try {
    await matcher.add({ path: "a.txt", mtimeMs: 0 }, encoder.encode("x\n"));
    // Longer than the whole allowance, with nothing to match: the clock stands still.
    await new Promise((resolve) => setTimeout(resolve, 600));
    await matcher.add({ path: "b.txt", mtimeMs: 0 }, encoder.encode("x\n"));
    const outcome = await matcher.finish();
    assertEquals(outcome.ok && outcome.files.map((file) => file.path), ["a.txt", "b.txt"]);
  } finally {
    await matcher.close();
  }
});

Deno.test("a matcher process that cannot start, or that dies, is a failure saying so", async () => {
  const missing = await matchAll(spec("x"), { "a.txt": "x\n" }, {
    command: { program: `${REPO_ROOT}/no-such-program`, args: [] },
  });
  assertEquals(missing.ok === false && missing.reason, "failed");
  if (!missing.ok && missing.reason === "failed") {
    assertStringIncludes(missing.detail, `cannot start the matcher process "${REPO_ROOT}/no-such`);
  }
  const dying = await matchAll(spec("x"), { "a.txt": "x\n" }, {
    command: { program: "/bin/sh", args: ["-c", "echo gone >&2; exit 3"] },
  });
  assertEquals(dying.ok === false && dying.reason, "failed");
  if (!dying.ok && dying.reason === "failed") {
    assertStringIncludes(dying.detail, "exited 3 before it answered for every file: gone");
  }
});

Deno.test("a cancel before the search starts starts no process", async () => {
  const controller = new AbortController();
  controller.abort();
  const outcome = await matchAll(spec("x"), { "a.txt": "x\n" }, { signal: controller.signal });
  assertEquals(outcome, { ok: false, reason: "cancelled" });
});

Deno.test("main.ts given the matcher argument is the matcher process, as the compiled binary runs it", async () => {
  const outcome = await matchAll(spec("needle"), { "a.txt": "hay\nneedle\n" }, {
    command: {
      program: Deno.execPath(),
      args: ["run", "--quiet", "--allow-all", `${REPO_ROOT}/main.ts`, GREP_MATCHER_ARGUMENT],
    },
  });
  assert(outcome.ok, JSON.stringify(outcome));
  assertEquals(outcome.files.map((file) => [file.path, file.count]), [["a.txt", 1]]);
});

Deno.test("the matcher process runs with no permission and none of the project's configuration", () => {
  const { program, args } = matcherCommand();
  assertEquals(program, Deno.execPath());
  assertEquals(args.slice(0, 2), ["run", "--quiet"]);
  assertEquals(args.filter((arg) => arg.startsWith("--allow") || arg === "-A"), []);
  for (const flag of ["--no-prompt", "--no-config", "--no-lock", "--no-npm", "--no-remote"]) {
    assert(args.includes(flag), flag);
  }
  assert(args.at(-1)!.endsWith("/src/agent/search/grep_matcher_process.ts"), args.at(-1));
});
