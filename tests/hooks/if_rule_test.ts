/**
 * Handler-level `if` rules, row by row as claude-compat.md §7 observed Claude Code 2.1.332
 * (profile `claude`), plus the same rules under llama-agent's own names (profile `llama`).
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { type IfRule, ifRuleMatches, parseIfRule } from "../../src/hooks/matching/if_rule.ts";
import { type CompatProfile, compatProfile } from "../../src/profile/compat_profile.ts";

const PROJECT = "/tmp/proj";
const claude = { profile: compatProfile("claude"), projectDir: PROJECT };
const llama = { profile: compatProfile("llama"), projectDir: PROJECT };

function rule(source: string): IfRule {
  const parsed = parseIfRule(source);
  if (parsed === null) throw new Error(`Expected "${source}" to be a rule`);
  return parsed;
}

interface Call {
  readonly label: string;
  readonly toolName: string;
  readonly toolInput: unknown;
}

function runs(
  source: string,
  call: Call,
  context: { profile: CompatProfile; projectDir: string } = claude,
): boolean {
  return ifRuleMatches(rule(source), call, context);
}

/** The labels of the calls a rule holds for, in column order. */
function ranFor(source: string, calls: readonly Call[], context = claude): string[] {
  return calls.filter((call) => runs(source, call, context)).map((call) => call.label);
}

const bash = (command: string): Call => ({
  label: command,
  toolName: "Bash",
  toolInput: { command, description: "run it" },
});

const BASH_CALLS = [
  bash("git commit -m x"),
  bash("echo hi"),
  bash("echo"),
  bash("echo hi && ls"),
  bash("ls -la"),
  bash("git status"),
  bash("echohi"),
];
const EVERY_COMMAND = BASH_CALLS.map((call) => call.label);

const BASH_TABLE: readonly [readonly string[], readonly string[]][] = [
  [["Bash", "Bash(*)"], EVERY_COMMAND],
  [["Bash(git commit:*)", "Bash(git commit *)"], ["git commit -m x"]],
  [["Bash(git *)", "Bash(git:*)"], ["git commit -m x", "git status"]],
  [["Bash(echo *)", "Bash(echo:*)"], ["echo hi", "echo", "echo hi && ls"]],
  [["Bash(echo*)"], ["echo hi", "echo", "echo hi && ls", "echohi"]],
  [["Bash(echo hi)"], ["echo hi", "echo hi && ls"]],
  [["Bash(echo)"], ["echo"]],
  [["Bash(ls *)"], ["echo hi && ls", "ls -la"]],
  [["bash(echo *)"], []],
];

for (const [sources, expected] of BASH_TABLE) {
  for (const source of sources) {
    Deno.test(`claude: "if": "${source}" runs for ${JSON.stringify(expected)} only`, () => {
      assertEquals(ranFor(source, BASH_CALLS), expected);
    });
  }
}

const file = (toolName: string, path: string): Call => ({
  label: `${toolName} ${path}`,
  toolName,
  toolInput: toolName === "Write"
    ? { file_path: `${PROJECT}/${path}`, content: "x" }
    : toolName === "Edit"
    ? { file_path: `${PROJECT}/${path}`, old_string: "a", new_string: "b" }
    : { file_path: `${PROJECT}/${path}` },
});

const FILE_CALLS: readonly Call[] = [
  file("Write", "README.md"),
  file("Write", "docs/guide.md"),
  file("Write", "src/b.ts"),
  file("Write", "notes.txt"),
  file("Edit", "src/a.ts"),
  file("Read", "src/a.ts"),
  file("Read", "README.md"),
  { label: "Glob", toolName: "Glob", toolInput: { pattern: "**/*.ts" } },
  { label: "Grep", toolName: "Grep", toolInput: { pattern: "TODO" } },
];

const FILE_TABLE: readonly [readonly string[], readonly string[]][] = [
  [["Write"], [
    "Write README.md",
    "Write docs/guide.md",
    "Write src/b.ts",
    "Write notes.txt",
  ]],
  [["Write(*.md)", "Write(**/*.md)"], ["Write README.md", "Write docs/guide.md"]],
  [["Write(README.md)"], ["Write README.md"]],
  [["Write(src/**)"], ["Write src/b.ts"]],
  // A `/` anywhere anchors the pattern at the project's root: only `*.md` looks at any depth.
  [["Write(./*.md)", "Write(/*.md)"], ["Write README.md"]],
  [["Edit"], ["Edit src/a.ts"]],
  [["Edit(src/**)", "Edit(src/*)", "Edit(./src/**)", "Edit(/src/**)", "Edit(//tmp/**)"], [
    "Edit src/a.ts",
  ]],
  [["Read"], ["Read src/a.ts", "Read README.md"]],
  [["Read(src/**)"], ["Read src/a.ts"]],
  [["Read(*.md)"], ["Read README.md"]],
  [["Glob"], ["Glob"]],
  [["Grep"], ["Grep"]],
];

for (const [sources, expected] of FILE_TABLE) {
  for (const source of sources) {
    Deno.test(`claude: "if": "${source}" runs for ${JSON.stringify(expected)} only`, () => {
      assertEquals(ranFor(source, FILE_CALLS), expected);
    });
  }
}

Deno.test('claude: "Edit(...)" rules do not match Write calls, nor "Read(...)" Glob or Grep', () => {
  assert(!runs("Edit(src/**)", file("Write", "src/b.ts")));
  assert(!runs("Read(src/**)", { label: "", toolName: "Glob", toolInput: { path: "src" } }));
  assert(!runs("Read(src/**)", { label: "", toolName: "Grep", toolInput: { path: "src" } }));
});

Deno.test("a compound command is split outside quotes and escapes; one sub-command is enough", () => {
  for (const command of ["echo hi; ls", "echo hi | ls", "echo hi || ls", "echo hi\nls -la"]) {
    assert(runs("Bash(ls *)", bash(command)), command);
  }
  assert(!runs("Bash(ls *)", bash('echo "hi && ls"')));
  assert(!runs("Bash(ls *)", bash("echo 'hi; ls'")));
  assert(!runs("Bash(ls *)", bash("echo hi \\; ls")));
  assert(runs("Bash(echo hi)", bash("  echo hi  &&  ls")));
});

const PUSH_RULE = "Bash(git push:*)";

Deno.test("every sub-command the shell runs is tested: background jobs, groups, keywords, substitutions", () => {
  for (
    const command of [
      "echo x & git push",
      "git push&",
      "sleep 1 &git push origin",
      "echo x |& git push",
      "(git push)",
      "(cd sub && (git push))",
      "git \\\npush origin",
      "FOO=1 git push",
      'FOO="a b" BAR=$(date) git push',
      "echo `git push`",
      "echo `echo \\`git push\\``",
      "echo $(git push)",
      'echo "$(echo $(git push))"',
      "diff <(git push) x",
      "{ git push; }",
      "if true; then git push; fi",
      "while git push; do :; done",
      "time git push",
      "! git push",
      "a |& git push",
      "git push>/dev/null",
      "2>/dev/null git push",
      "echo \\>| git push",
      "echo $'\\'' ; git push",
      "echo \\ # ; git push",
      'echo "$(case x in a) git push;; esac)"',
      "cat <<EOF\n$(git push)\nEOF",
      "cat <<EOF\nhello\nEOF\ngit push",
      "echo $((1<<2))\ngit push",
      "\\git push",
      '"git" push',
      "g'i't \"push\" origin",
    ]
  ) {
    assert(runs(PUSH_RULE, bash(command)), command);
  }
});

Deno.test("a line nested deeper than any person writes is still split, into more parts", () => {
  assert(runs(PUSH_RULE, bash(`${"(".repeat(5000)}git push`)));
  assert(runs(PUSH_RULE, bash(`${"$(".repeat(5000)}echo; git push`)));
});

Deno.test("the & of a redirection splits nothing: 2>&1, >&2 and &>log stay in their command", () => {
  assert(runs("Bash(make 2>&1)", bash("make 2>&1")));
  assert(runs("Bash(echo hi >&2)", bash("echo hi >&2")));
  assert(runs("Bash(ls &>log)", bash("ls &>log")));
  assert(!runs("Bash(log*)", bash("ls &>log")));
  assert(runs("Bash(FOO=1 make *)", bash("FOO=1 make all")), "the assignment as written");
});

Deno.test("here-document bodies and comments hold no commands", () => {
  for (
    const command of [
      "cat > NOTES.md <<'EOF'\ngit push origin main\nEOF",
      'cat <<"EOF"\n$(git push)\nEOF',
      "cat <<-EOF\n\tgit push\n\tEOF\nls",
      "cat <<A <<B\ngit push\nA\ngit push\nB",
      "echo x # ; git push",
      "echo x\n# git push\nls",
    ]
  ) {
    assert(!runs(PUSH_RULE, bash(command)), command);
  }
  assert(runs("Bash(ls *)", bash("cat <<-EOF\n\tgit push\n\tEOF\nls")));
  assert(runs("Bash(echo a#b)", bash("echo a#b # a comment")));
});

Deno.test('command patterns: * spans spaces, \\* is a literal star, "prefix *" also the bare prefix', () => {
  assert(runs("Bash(git * --force)", bash("git push origin main --force")));
  assert(!runs("Bash(git * --force)", bash("git push --force-with-lease")));
  assert(runs("Bash(echo \\*)", bash("echo *")));
  assert(!runs("Bash(echo \\*)", bash("echo hi")));
  assert(runs("Bash(*a*a*b)", bash("aaab")));
  assert(!runs("Bash(*ab*ba*)", bash("aba")), "segments never overlap");
  assert(runs("Bash(npm run *)", bash("npm run")));
  assert(!runs("Bash(npm run *)", bash("npm runner")));
});

Deno.test("patterns of many stars against long commands answer without backtracking", () => {
  const words = "a b c d e f g ".repeat(220); // 3 KB of blanks that each " " could take
  assert(!runs("Bash(* * * *.env*)", bash(`echo ${words}`)));
  assert(runs("Bash(* * * *.env*)", bash(`echo ${words} .env`)));
  const pushes = "echo 'git push ' ".repeat(1100); // 18 KB of places for "git " and "push "
  assert(!runs("Bash(*git *push *--force*)", bash(pushes)));
  assert(runs("Bash(*git *push *--force*)", bash(`${pushes}--force`)));
});

Deno.test("a relative path pattern never matches a path outside the project", () => {
  assert(!runs("Write(src/**)", file("Write", "../other/src/b.ts")));
  assert(
    !runs("Write(src/**)", { label: "", toolName: "Write", toolInput: { file_path: "/src/b.ts" } }),
  );
  assert(
    !runs("Write(*.md)", { label: "", toolName: "Write", toolInput: { file_path: "/etc/x.md" } }),
  );
  assert(
    runs("Write(//etc/**)", {
      label: "",
      toolName: "Write",
      toolInput: { file_path: "/etc/x.md" },
    }),
  );
});

Deno.test("a rule with a pattern does not match a call whose input lacks the field", () => {
  assert(!runs("Bash(echo *)", { label: "", toolName: "Bash", toolInput: {} }));
  assert(!runs("Write(*.md)", { label: "", toolName: "Write", toolInput: { file_path: 3 } }));
  assert(runs("Bash", { label: "", toolName: "Bash", toolInput: {} }));
});

const shell = (command: string): Call => ({
  label: command,
  toolName: "shell",
  toolInput: { command },
});

Deno.test('llama: "shell(git commit:*)" runs for "git commit -m x" and not for "echo hi"', () => {
  assert(runs("shell(git commit:*)", shell("git commit -m x"), llama));
  assert(!runs("shell(git commit:*)", shell("echo hi"), llama));
});

Deno.test("llama: a rule names the offered tool; Claude Code's names and aliases never match", () => {
  assert(!runs("Bash(git commit:*)", shell("git commit -m x"), llama));
  assert(!runs("Bash", shell("git commit -m x"), llama));
  const alias = { label: "", toolName: "terminal", toolInput: { command: "git commit -m x" } };
  assert(!runs("terminal(git commit:*)", alias, llama));
  assert(!runs("shell(git commit:*)", { ...shell("git commit -m x"), toolName: "Bash" }, claude));
});

Deno.test("llama: a call under an alias is tested against the rule for the offered name", () => {
  const terminal = { label: "", toolName: "terminal", toolInput: { command: "git push" } };
  assert(runs("shell(git push:*)", terminal, llama));
  assert(runs("shell", terminal, llama));
  assert(runs("terminal", terminal, llama), "a rule without a pattern on the very name called");
  const readFile = { label: "", toolName: "read_file", toolInput: { file_path: ".env" } };
  assert(runs("fs_read(.env)", readFile, llama));
  assert(!runs("Bash(git push:*)", { ...terminal, toolName: "terminal" }, claude), "no aliases");
});

Deno.test('llama: a path rule reads "path", the alias of "file_path"', () => {
  const write = (input: Record<string, string>): Call => ({
    label: "",
    toolName: "fs_write",
    toolInput: { ...input, content: "x" },
  });
  assert(runs("fs_write(src/**)", write({ path: "src/a.ts" }), llama));
  assert(runs("fs_write(src/**)", write({ file_path: "docs/a.md", path: "src/a.ts" }), llama));
  assert(!runs("fs_write(src/**)", write({ path: "docs/a.md" }), llama));
  assert(
    !runs("Write(src/**)", { label: "", toolName: "Write", toolInput: { path: "src/a.ts" } }),
    "Claude Code reads file_path only",
  );
});

Deno.test('llama: "fs_write(*.md)" matches a relative or absolute path at any depth', () => {
  const write = (path: string): Call => ({
    label: path,
    toolName: "fs_write",
    toolInput: { file_path: path, content: "x" },
  });
  assert(runs("fs_write(*.md)", write("docs/guide.md"), llama));
  assert(runs("fs_write(*.md)", write("README.md"), llama));
  assert(runs("fs_write(*.md)", write(`${PROJECT}/README.md`), llama));
  assert(!runs("fs_write(*.md)", write("src/b.ts"), llama));
  assert(!runs("Write(*.md)", write("README.md"), llama));
  assert(runs("fs_write(src/**)", write("./src/../src/b.ts"), llama));
});

Deno.test("an MCP rule without a pattern matches that exact tool", () => {
  const mcp = (name: string): Call => ({ label: name, toolName: name, toolInput: { q: "x" } });
  assert(runs("mcp__srv__search", mcp("mcp__srv__search")));
  assert(!runs("mcp__srv__search", mcp("mcp__srv__fetch")));
  assert(!runs("mcp__srv__search(x)", mcp("mcp__srv__search")));
});

Deno.test('"if": "" is no rule at all: the hook behaves as if it had no "if"', () => {
  assertEquals(parseIfRule(""), null);
});

Deno.test('rules parse to a tool name and a pattern; "Tool(*)" is the whole tool', () => {
  assertEquals(rule("Bash(git commit:*)"), {
    source: "Bash(git commit:*)",
    toolName: "Bash",
    pattern: "git commit:*",
  });
  assertEquals(rule("Bash(*)"), { source: "Bash(*)", toolName: "Bash", pattern: null });
  assertEquals(rule("Write"), { source: "Write", toolName: "Write", pattern: null });
  assertEquals(rule("Bash(echo $(date))"), {
    source: "Bash(echo $(date))",
    toolName: "Bash",
    pattern: "echo $(date)",
  });
});

const INVALID: readonly [string, string][] = [
  ["Bash(echo", "Unbalanced parenthesis"],
  ["Bash(git *)|Bash(echo *)", "Alternation is not supported"],
  ["Bash(git *) || Bash(echo *)", "Alternation is not supported"],
  ["Bash(git *), Bash(echo *)", "Alternation is not supported"],
  ["Bash|Write", "Alternation is not supported"],
  ["*", "is not a tool name"],
  ["Bash(^echo.*)", "looks like a regular expression"],
  ["mcp__foo", "names no MCP tool"],
  ["mcp__srv__search(x)", "takes no pattern"],
  ["Bash(git *) extra", "Unexpected text after the pattern"],
  ["Bash(git push:*) ", 'Trailing space after the rule: write "Bash(git push:*)"'],
  [" Bash(git push:*)", 'Leading space before the rule: write "Bash(git push:*)"'],
];

for (const [source, why] of INVALID) {
  Deno.test(`"if": ${JSON.stringify(source)} can never match: ${why}`, () => {
    const parsed = rule(source);
    assert("invalid" in parsed, `expected "${source}" to be invalid`);
    assert(parsed.invalid.includes(why), parsed.invalid);
    for (const call of [...BASH_CALLS, ...FILE_CALLS]) assert(!runs(source, call));
  });
}

Deno.test("a command run by a wrapper is tested too: sudo, env, nohup, timeout, xargs", () => {
  const rule = parseIfRule("Bash(git push:*)")!;
  const call = (command: string) =>
    ifRuleMatches(rule, { toolName: "Bash", toolInput: { command } }, {
      profile: compatProfile("claude"),
      projectDir: "/p",
    });
  for (
    const command of [
      "sudo git push",
      "sudo -u deploy git push origin",
      "env -u HOME A=1 git push",
      "nohup git push &",
      "timeout 30 git push",
      "timeout -s KILL 5m git push",
      "nice -n 10 command git push",
      "echo main | xargs -I{} git push origin {}",
    ]
  ) assertEquals(call(command), true, command);
  assertEquals(call("sudo git status"), false);
  assertEquals(call("timeout 30"), false);
});
