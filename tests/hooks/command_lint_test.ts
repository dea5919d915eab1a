/**
 * `hooks lint` on what a command hook runs: programs not on PATH, and bash-only syntax that
 * `/bin/sh` (dash) rejects.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { bashOnlySyntax } from "../../src/hooks/lint/bash_syntax_lint.ts";
import { bareProgramNames, shellCommandLookup } from "../../src/hooks/lint/command_path_lint.ts";
import { group, lintProject, only, PROJECT, run, settings, summary } from "./lint_project.ts";

const codes = (d: { code: string; pointer: string }[]) => d.map((x) => `${x.code} ${x.pointer}`);

const names = (command: string, args?: string[]) =>
  bareProgramNames({ type: "command", command, args }).names;

Deno.test("the bare program words of a command line are the ones PATH must find", () => {
  assertEquals(names("jq -r .x | prettier --check && git diff"), ["jq", "prettier", "git"]);
  assertEquals(names("FOO=1 exec env -i A=b nohup node x.js; time make"), ["node", "make"]);
  assertEquals(names("if ! grep -q x f; then echo y; fi"), ["grep"]);
  assertEquals(names("while read l; do wc -l; done"), ["wc"]);
  assertEquals(names("cd /x && ./run.sh && /usr/bin/env true && $TOOL x && `which a`"), []);
  assertEquals(names('f() { jq .; }; f; "$(command -v rg)" x'), ["jq"]);
  assertEquals(names("for f in a b; do lint $f; done"), ["lint"]);
  assertEquals(names("source ./env.sh; [[ -n x ]]"), [], "bash-only, reported as such");
  // Case patterns, here-documents, arithmetic and arrays hold words that are not programs.
  assertEquals(names('case "$x" in Bash) exit 2;; esac'), []);
  assertEquals(names("cat <<EOF\nhello world\nEOF"), []);
  assertEquals(names("x=(a b); echo ${x[0]}"), []);
  assertEquals(names("jq", ["-r", "."]), ["jq"]);
  assertEquals(names("./bin/hook", ["x"]), []);
});

Deno.test("the operands of [[ ... ]] are no programs: a regex's alternatives after =~ least of all", () => {
  assertEquals(names('[[ $x =~ \\.(js|ts)$ ]] && prettier --write "$x"'), ["prettier"]);
  assertEquals(names("[[ $x =~ a|b ]] || jq ."), ["jq"]);
  assertEquals(names('[[ "$x" =~ ^(a b|c)$ ]]'), []);
  assertEquals(names("[[ -f a && -x b || c == d ]] && make"), ["make"]);
  assertEquals(names("[[ $a < $b ]] && make"), ["make"]);
  assertEquals(names('if [[ "$f" == *.py ]]; then ruff format "$f"; fi'), ["ruff"]);
  assertEquals(names("! [[ -z $x ]] && make; [[ -n $y ]]; gmake"), ["make", "gmake"]);
  assertEquals(names("([[ -n $x ]]) && make"), ["make"], "a ]] right before an operator ends it");
  assertEquals(names('[[ "$x" == "]]" || y == z ]] && jq .'), ["jq"], "a quoted ]] does not");
});

Deno.test("a case's patterns are no programs; the commands of each clause are", () => {
  assertEquals(
    names('case "$f" in *.js|*.ts) prettier --write "$f";; start|stop) frob;; esac; jq .'),
    ["prettier", "frob", "jq"],
  );
  assertEquals(names("case $1 in (a|b) x1 ;& c) x2 ;;& *) x3 ;; esac"), ["x1", "x2", "x3"]);
  assertEquals(
    names("case $a in x) case $b in y|z) inner;; esac;; w|v) outer;; esac; last"),
    ["inner", "outer", "last"],
  );
  assertEquals(names("case $a in x)\n  foo\nesac\nbar"), ["foo", "bar"], "no ;; before esac");
  assertEquals(names('case "$x" in "a)b"|c\)) quoted;; esac'), ["quoted"]);
});

Deno.test("arithmetic and array lists are no programs, and what follows them is checked", () => {
  assertEquals(names("((i++)) && make"), ["make"]);
  assertEquals(names("(( x > 1 )) || gmake; echo $((1 + 2))"), ["gmake"]);
  assertEquals(names("x=(a b c); jq ."), ["jq"]);
});

Deno.test("a program not on PATH is a warning at the command; builtins and files are not", async () => {
  const text = settings({
    PreToolUse: [group(
      "shell",
      run("jq -r .tool_input.command | frobnicate --check"),
      run("frobnicate again"),
      run("cd", { args: ["/tmp"] }),
      run("echo ok; true"),
    )],
    Stop: [group(undefined, run("prettier --write ."))],
  });
  const asked: string[][] = [];
  await lintProject({ [PROJECT]: text }, (diagnostics) => {
    assertEquals(summary(only(diagnostics, "LINT_COMMAND_NOT_FOUND")), [
      "warning LINT_COMMAND_NOT_FOUND /hooks/PreToolUse/0/hooks/0/command: " +
      'Command "frobnicate" is not on PATH, so the hook fails with "frobnicate: not found" ' +
      "(exit 127, a non-blocking error) every time it runs: install it, or write its full " +
      "path (hooks get the agent's PATH)",
      "warning LINT_COMMAND_NOT_FOUND /hooks/PreToolUse/0/hooks/1/command: " +
      'Command "frobnicate" is not on PATH, so the hook fails with "frobnicate: not found" ' +
      "(exit 127, a non-blocking error) every time it runs: install it, or write its full " +
      "path (hooks get the agent's PATH)",
      "warning LINT_COMMAND_NOT_FOUND /hooks/PreToolUse/0/hooks/2/command: " +
      '"cd" is a shell builtin, not a program: with "args" the command runs without a shell, ' +
      'so the hook cannot start; drop "args" to run it with /bin/sh',
    ]);
    // One lookup for the whole chain, each name once; builtins are never asked about.
    assertEquals(asked, [["jq", "frobnicate", "cd", "prettier"]]);
  }, { commands: { frobnicate: "missing", cd: "builtin" }, asked });
});

Deno.test("a lookup that cannot tell, or none at all, reports nothing", async () => {
  const text = settings({ Stop: [group(undefined, run("frobnicate"))] });
  await lintProject({ [PROJECT]: text }, (diagnostics) => assertEquals(diagnostics, []), {
    findCommands: () => Promise.resolve(new Map()),
  });
  await lintProject({ [PROJECT]: text }, (diagnostics) => assertEquals(diagnostics, []), {
    findCommands: undefined,
  });
});

Deno.test("the real lookup asks /bin/sh: files, builtins and missing names", async () => {
  const find = shellCommandLookup({ path: "/usr/bin:/bin", cwd: "/" });
  const found = await find(["sh", "cd", "no-such-program-llama-agent-test"]);
  assertEquals(found.get("sh"), "file");
  assertEquals(found.get("cd"), "builtin");
  assertEquals(found.get("no-such-program-llama-agent-test"), "missing");
});

Deno.test("bash-only syntax is found outside quotes, with what dash does with it", () => {
  const shown = (command: string) => bashOnlySyntax(command).map((c) => `${c.shown} ${c.exitCode}`);
  assertEquals(shown('[[ "$(jq -r .x)" =~ ^git ]] && exit 2'), ['"[[ ... ]]" 127', '"=~" 127']);
  assertEquals(shown("function check { :; }; check"), ['"function name" 2']);
  assertEquals(shown("files=(a b); echo ${files[@]}"), [
    'arrays ("x=(...)") 2',
    '"${x[...]}" / "${!x}" 2',
  ]);
  assertEquals(shown('echo "${list[0]}"'), ['"${x[...]}" / "${!x}" 2']);
  assertEquals(shown("cat <<< hi; source ./env.sh"), ['"<<<" 2', '"source" 127']);
  for (const fine of ["[ -n x ] && echo '[[ not code ]]'", 'echo "function x"', "x=$(date)"]) {
    assertEquals(shown(fine), [], fine);
  }
  assertEquals(shown("# [[ a comment ]]\ntest -f x"), []);
});

Deno.test("bash-only syntax is a warning that says exit 2 blocks where the event can be blocked", async () => {
  const text = settings({
    PreToolUse: [group(
      "shell",
      run("x=(a b); echo ${x[@]}"),
      run('[[ -f "$CLAUDE_PROJECT_DIR/x" ]] && exit 2'),
      run("bash", { args: ["-c", "[[ -f x ]]"] }),
    )],
    Notification: [group(undefined, run("function f { :; }; f"))],
  });
  await lintProject({ [PROJECT]: text }, (diagnostics) => {
    const found = only(diagnostics, "LINT_BASH_ONLY_SYNTAX");
    assertEquals(found.map((d) => d.pointer), [
      "/hooks/PreToolUse/0/hooks/0/command",
      "/hooks/PreToolUse/0/hooks/1/command",
      "/hooks/Notification/0/hooks/0/command",
    ]);
    assertEquals(
      found[0]!.message,
      'This command uses bash-only syntax (arrays ("x=(...)"), "${x[...]}" / "${!x}"), but ' +
        "hooks run with /bin/sh, which is dash on Debian and Ubuntu: there it stops with a " +
        'syntax error (exit 2), which blocks on "PreToolUse"; write it for POSIX sh ("[ ... ]", ' +
        '"case", "."), or put it in a script that starts with "#!/usr/bin/env bash"',
    );
    assertStringIncludes(found[1]!.message, 'fails with "not found" (exit 127');
    assertStringIncludes(found[2]!.message, "(exit 2), reported as a hook error");
    assert(found.every((d) => d.severity === "warning"));
    assertEquals(only(diagnostics, "LINT_COMMAND_NOT_FOUND"), []);
  });
});

Deno.test("a name the command looks up first is a guarded use, not a missing program", () => {
  assertEquals(names("command -v prettierx >/dev/null 2>&1 && prettierx --write . || true"), []);
  assertEquals(names("if command -v ruffx >/dev/null; then ruffx format .; fi"), []);
  assertEquals(names("command -V jq && jq ."), []);
  assertEquals(names("which blackx >/dev/null && blackx . || exit 0"), ["which"]);
  assertEquals(names("type shfmtx && hash gofmtx 2>/dev/null && shfmtx -w . && gofmtx"), []);
  // A name looked up is still only that one: the others are checked.
  assertEquals(names("command -v jq && jq . | frobnicate"), ["frobnicate"]);
  assertEquals(names("command git status"), ["git"], "command without -v runs it");
});

Deno.test("a command that sets PATH or sources a file gets no PATH finding", () => {
  assertEquals(names('export PATH="$HOME/.local/bin:$PATH"; ruffx check .'), []);
  assertEquals(names('PATH="$CLAUDE_PROJECT_DIR/bin:$PATH" mytoolx --check'), []);
  assertEquals(names('. "$CLAUDE_PROJECT_DIR/.venv/bin/activate" && blackx .'), []);
  assertEquals(names("source ~/.nvm/nvm.sh && nvmx use"), []);
  assertEquals(names("MYPATH=x frobnicate"), ["frobnicate"]);
});

Deno.test("a function's definition is not a program, and calling it is not either", () => {
  assertEquals(names("function foo { echo; }; foo"), []);
  assertEquals(names("foo() { jq .; }; foo"), ["jq"]);
  assertEquals(names("function check { frobnicate; }; check"), ["frobnicate"]);
});

Deno.test("here-document bodies are input, not shell code, for the bash-only check", () => {
  const shown = (command: string) => bashOnlySyntax(command).map((c) => c.shown);
  assertEquals(shown("node <<'JS'\nfunction main() { process.exit(0) }\nmain()\nJS"), []);
  assertEquals(shown("python3 - <<'PY'\nx = [[ 1, 2 ]]\nPY"), []);
  assertEquals(shown("bash <<EOF\n[[ -f x ]] && echo y\nEOF"), []);
  assertEquals(shown('cat <<-"END"\n\tlet x=1\n\tEND'), []);
  // Code after the body, and on the line of the <<, is still looked at.
  assertEquals(shown("cat <<EOF && [[ -f x ]]\nbody\nEOF\nsource x"), ['"[[ ... ]]"', '"source"']);
  assertEquals(shown("cat <<< hi"), ['"<<<"']);
});

Deno.test("guards, PATH changes and here-documents give no finding in lint", async () => {
  const text = settings({
    Stop: [group(
      undefined,
      run("command -v prettierx >/dev/null 2>&1 && prettierx --write . || true"),
      run('export PATH="$HOME/.local/bin:$PATH"; ruffx check .'),
      run("function foo { :; }; foo"),
      run("python3 - <<'PY'\nx = [[ 1, 2 ]]\nPY"),
    )],
  });
  await lintProject({ [PROJECT]: text }, (diagnostics) => {
    assertEquals(codes(diagnostics), ["LINT_BASH_ONLY_SYNTAX /hooks/Stop/0/hooks/2/command"]);
  }, { commands: { prettierx: "missing", ruffx: "missing", foo: "missing", function: "missing" } });
});

Deno.test("lint in the claude profile takes no regex alternative or case pattern for a program", async () => {
  const text = settings({
    PostToolUse: [group(
      "Edit|Write",
      run(
        'f=$(jq -r .tool_input.file_path); [[ $f =~ \\.(js|ts)$ ]] && npx prettier --write "$f"',
      ),
      run('case "$(jq -r .tool_name)" in Edit|Write) frobnicate;; esac'),
    )],
  });
  const asked: string[][] = [];
  await lintProject({ [PROJECT]: text }, (diagnostics) => {
    assertEquals(summary(only(diagnostics, "LINT_COMMAND_NOT_FOUND")), [
      "warning LINT_COMMAND_NOT_FOUND /hooks/PostToolUse/0/hooks/1/command: " +
      'Command "frobnicate" is not on PATH, so the hook fails with "frobnicate: not found" ' +
      "(exit 127, a non-blocking error) every time it runs: install it, or write its full " +
      "path (hooks get the agent's PATH)",
    ]);
    assertEquals(asked, [["npx", "frobnicate"]]);
  }, {
    profile: "claude",
    commands: {
      js: "missing",
      ts: "missing",
      Edit: "missing",
      Write: "missing",
      frobnicate: "missing",
    },
    asked,
  });
});
