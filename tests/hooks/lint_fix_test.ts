/**
 * `hooks lint --fix`: Claude Code matchers become lists that match in both agents, in place,
 * with every comment and every other byte of the file kept.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { withTempProject } from "../helpers/run_cli.ts";
import { fixMatchers, fixSettingsFile } from "../../src/hooks/lint/matcher_fix.ts";
import { replaceFileText } from "../../src/replace_file.ts";
import { compileMatcher, matches } from "../../src/hooks/matching/matcher.ts";
import { parseSettingsFile } from "../../src/hooks/settings/settings_file.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";

const LLAMA = compatProfile("llama");

const BEFORE = `// Shared with Claude Code: keep both agents happy.
{
  "hooks": {
    "PreToolUse": [
      {   "matcher":"Bash" , /* the guard */
          "hooks": [{ "type": "command", "command": "./guard.sh" }] },
      { "matcher": "Edit|MultiEdit|Write", "hooks": [{ "type": "command", "command": "fmt" }], },
      { "matcher": "^Bash$", "hooks": [{ "type": "command", "command": "regex" }] },
      { "matcher": "shell|Bash", "hooks": [{ "type": "command", "command": "shared" }] },
    ],
    "PostToolUseFailure": [{ "matcher": "Read, Glob", "hooks": [{ "type": "command", "command": "r" }] }],
    "SessionStart": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "s" }] }],
  },
}
`;

const AFTER = BEFORE
  .replace('"matcher":"Bash" ,', '"matcher":"Bash|shell" ,')
  .replace('"Edit|MultiEdit|Write"', '"Edit|MultiEdit|Write|fs_edit|fs_write"')
  .replace('"Read, Glob"', '"Read, Glob, fs_read, fs_glob"');

/** The matchers of the tool events in a settings text, in file order. */
function toolMatchers(text: string): string[] {
  const { settings } = parseSettingsFile("/x/settings.json", text);
  const hooks = settings?.hooks ?? {};
  return ["PreToolUse", "PostToolUseFailure"].flatMap((event) =>
    (hooks[event] as { matcher: string }[]).map((g) => g.matcher)
  );
}

Deno.test("--fix rewrites only the matcher tokens: comments, commas and spacing stay", () => {
  const { text, fixes } = fixMatchers(BEFORE, LLAMA);
  assertEquals(text, AFTER);
  assertEquals(fixes, [
    { pointer: "/hooks/PreToolUse/0/matcher", line: 5, from: "Bash", to: "Bash|shell" },
    {
      pointer: "/hooks/PreToolUse/1/matcher",
      line: 7,
      from: "Edit|MultiEdit|Write",
      to: "Edit|MultiEdit|Write|fs_edit|fs_write",
    },
    {
      pointer: "/hooks/PostToolUseFailure/0/matcher",
      line: 11,
      from: "Read, Glob",
      to: "Read, Glob, fs_read, fs_glob",
    },
  ]);
});

Deno.test("a fixed matcher matches our tool and still matches Claude Code's", () => {
  const [bash, edits, regex, shared, reads] = toolMatchers(fixMatchers(BEFORE, LLAMA).text).map(
    (source) => {
      const compiled = compileMatcher(source);
      assert(compiled.ok, source);
      return compiled.matcher;
    },
  );
  for (const name of ["Bash", "shell"]) assert(matches(bash!, name), name);
  for (const name of ["Edit", "MultiEdit", "Write", "fs_edit", "fs_write"]) {
    assert(matches(edits!, name), name);
  }
  for (const name of ["Read", "Glob", "fs_read", "fs_glob"]) assert(matches(reads!, name), name);
  // The regex is the user's to rewrite: it is left as it was, and still matches only Bash.
  assertEquals(regex, { kind: "regex", regex: /^Bash$/ });
  assert(matches(shared!, "shell") && matches(shared!, "Bash"));
});

Deno.test("nothing to fix leaves the text as it is; a byte order mark is kept", () => {
  const clean = '{ "hooks": { "PreToolUse": [{ "matcher": "shell", "hooks": [] }] } }';
  assertEquals(fixMatchers(clean, LLAMA), { text: clean, fixes: [] });
  assertEquals(fixMatchers("not json", LLAMA), { text: "not json", fixes: [] });
  const bom = "\ufeff" + '{ "hooks": { "PostToolUse": [{ "matcher": "Grep", "hooks": [] }] } }';
  const fixed = fixMatchers(bom, LLAMA);
  assertEquals(fixed.text, bom.replace('"Grep"', '"Grep|fs_grep"'));
});

Deno.test("under --compat claude, llama-agent's own names get Claude Code's added", () => {
  const ours = '{ "hooks": { "PreToolUse": [{ "matcher": "shell", "hooks": [] }] } }';
  const { text } = fixMatchers(ours, compatProfile("claude"));
  assertEquals(text, ours.replace('"shell"', '"shell|Bash"'));
  assertEquals(fixMatchers(AFTER, compatProfile("claude")).fixes, []);
});

Deno.test("fixing a file writes it in place with its mode; an unchanged file is not written", async () => {
  await withTempProject({ "a/settings.json": { text: BEFORE, mode: 0o640 } }, async (dir) => {
    const path = `${dir}/a/settings.json`;
    const result = await fixSettingsFile(path, LLAMA, replaceFileText);
    assert(result.ok);
    assertEquals(result.fixes.length, 3);
    assertEquals(await Deno.readTextFile(path), AFTER);
    assertEquals((await Deno.stat(path)).mode! & 0o777, 0o640);
    assertEquals([...Deno.readDirSync(`${dir}/a`)].map((e) => e.name), ["settings.json"]);
    const modified = (await Deno.stat(path)).mtime;
    const again = await fixSettingsFile(path, LLAMA, replaceFileText);
    assertEquals(again, { ok: true, fixes: [], target: path });
    assertEquals((await Deno.stat(path)).mtime, modified);
  });
});

Deno.test("a file that cannot be read is an error naming it", async () => {
  const result = await fixSettingsFile(
    "/nonexistent-llama-agent/settings.json",
    LLAMA,
    replaceFileText,
  );
  assert(!result.ok);
  assert(result.message.startsWith('Cannot fix "/nonexistent-llama-agent/settings.json": '));
});

/** Two "PreToolUse" keys: the loader reads only the second, as `JSON.parse` does. */
const REPEATED_EVENT = `{
  "hooks": {
    "PreToolUse": [
      { "matcher": "fs_read", "hooks": [{ "type": "command", "command": "echo old" }] }
    ],
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "echo new" }] }
    ]
  }
}
`;

Deno.test("a repeated event key: the matcher fixed is the one read, not the earlier copy's", () => {
  const { text, fixes } = fixMatchers(REPEATED_EVENT, LLAMA);
  assertEquals(text, REPEATED_EVENT.replace('"Bash"', '"Bash|shell"'));
  assertEquals(fixes, [
    { pointer: "/hooks/PreToolUse/0/matcher", line: 7, from: "Bash", to: "Bash|shell" },
  ]);
  // What the loader now reads is the fixed matcher.
  const { settings } = parseSettingsFile("/x/settings.json", text);
  assertEquals(settings?.hooks?.["PreToolUse"], [
    { matcher: "Bash|shell", hooks: [{ type: "command", command: "echo new" }] },
  ]);
});

Deno.test("a repeated matcher or hooks key: only the last value is rewritten", () => {
  const matcherTwice = '{ "hooks": { "PreToolUse": [{ "matcher": "Read", "matcher": "Bash", ' +
    '"hooks": [] }] } }';
  assertEquals(
    fixMatchers(matcherTwice, LLAMA).text,
    matcherTwice.replace('"Bash"', '"Bash|shell"'),
  );
  const hooksTwice = '{ "hooks": { "Stop": [] }, ' +
    '"hooks": { "PreToolUse": [{ "matcher": "Grep", "hooks": [] }] } }';
  assertEquals(fixMatchers(hooksTwice, LLAMA).text, hooksTwice.replace('"Grep"', '"Grep|fs_grep"'));
});

Deno.test("a symlinked settings file is fixed in its target, which the result names", async () => {
  await withTempProject({ "dotfiles/settings.json": BEFORE, "a/.keep": "" }, async (dir) => {
    const link = `${dir}/a/settings.json`;
    await Deno.symlink(`${dir}/dotfiles/settings.json`, link);
    const result = await fixSettingsFile(link, LLAMA, replaceFileText);
    assert(result.ok);
    assertEquals(result.target, `${dir}/dotfiles/settings.json`);
    assert((await Deno.lstat(link)).isSymlink, "the link stays a link");
    assertEquals(await Deno.readTextFile(`${dir}/dotfiles/settings.json`), AFTER);
  });
});
