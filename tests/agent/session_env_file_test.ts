/**
 * CLAUDE_ENV_FILE, read as data (hooks.md §12.7): the assignment forms a hook writes are applied
 * as sh would apply them, over the shell's own environment, and every other line sets nothing
 * and is named in one log line. The files of one firing: one fresh private file per hook, read
 * back in position order.
 */
import {
  applyEnvAssignments,
  parseEnvFile,
  resolveEnvAssignments,
  sessionEnvDirFor,
  SessionStartEnvFiles,
} from "../../src/agent/shell/session_env_file.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { withTempDir } from "./temp_dir.ts";

/** What a file sets, over `base`, as name → value. */
function sets(text: string, base: Record<string, string> = {}): Record<string, string> {
  const { assignments } = parseEnvFile(text);
  return Object.fromEntries(resolveEnvAssignments(assignments, (name) => base[name]));
}

const ignoredLines = (text: string) => parseEnvFile(text).ignored.map((i) => i.line);

Deno.test("export NAME=value, NAME=value and both quotings set the variable", () => {
  assertEquals(
    sets(
      [
        "export A=plain",
        'export B="double quoted"',
        "export C='single quoted'",
        "D=bare",
        "E=",
        "F=\"joined\"'pieces'too",
      ].join("\n"),
    ),
    { A: "plain", B: "double quoted", C: "single quoted", D: "bare", E: "", F: "joinedpiecestoo" },
  );
});

Deno.test("comments, blank lines and CRLF line ends set nothing and are not reported", () => {
  const parsed = parseEnvFile("# made by a hook\r\n\r\n   \n  export A=1   # why\r\n\tB=2\n");
  assertEquals(parsed.ignored, []);
  assertEquals(sets("# x\r\n\r\n  export A=1   # why\r\n\tB=2\n"), { A: "1", B: "2" });
});

Deno.test("$NAME and ${NAME} expand over the shell's environment and earlier lines, as sh does", () => {
  const base = { PATH: "/usr/bin", HOME: "/home/u" };
  assertEquals(
    sets(
      [
        'export PATH="$PATH:/opt/bin"',
        "export TOOLS=${HOME}/tools",
        'export BOTH="$TOOLS and $PATH"',
        "export LITERAL='$PATH'",
        'export UNSET="[$NOT_SET]"',
        'export ESCAPED="\\$PATH \\"q\\" \\\\ \\n"',
        'export DOLLAR="costs $ 5"',
        "export BARE=a\\ b",
      ].join("\n"),
      base,
    ),
    {
      PATH: "/usr/bin:/opt/bin",
      TOOLS: "/home/u/tools",
      BOTH: "/home/u/tools and /usr/bin:/opt/bin",
      LITERAL: "$PATH",
      UNSET: "[]",
      ESCAPED: '$PATH "q" \\ \\n',
      DOLLAR: "costs $ 5",
      BARE: "a b",
    },
  );
});

Deno.test("a leading ~ (and one after a colon) is HOME; ~user is not expanded", () => {
  assertEquals(sets("export A=~/bin:~/lib\nexport B='~/quoted'", { HOME: "/h" }), {
    A: "/h/bin:/h/lib",
    B: "~/quoted",
  });
  assertEquals(ignoredLines("export A=~root/bin"), [1]);
});

Deno.test("expansion waits for the shell: applied over each run's own environment", () => {
  const { assignments } = parseEnvFile('export PATH="$PATH:/opt/bin"\nexport FOO=bar\n');
  assertEquals(applyEnvAssignments({ PATH: "/a", KEEP: "k" }, assignments), {
    PATH: "/a:/opt/bin",
    KEEP: "k",
    FOO: "bar",
  });
  assertEquals(applyEnvAssignments({ PATH: "/b" }, assignments).PATH, "/b:/opt/bin");
});

Deno.test("a later assignment of a name wins, and reads the earlier one", () => {
  assertEquals(sets("export A=1\nexport A=$A-2\n"), { A: "1-2" });
});

Deno.test("a variable named like an Object property reads nothing from the prototype", () => {
  const { assignments } = parseEnvFile('export X="$constructor$toString"\n');
  assertEquals(applyEnvAssignments({}, assignments).X, "");
});

Deno.test("lines that are not plain assignments are ignored, each with its reason", () => {
  const text = [
    "echo hi", // 1: a command
    "export 9X=1", // 2: invalid name
    "export FOO-BAR=1", // 3: invalid name
    "export A=$(id)", // 4: command substitution
    'export B="`id`"', // 5: command substitution
    "export C=`id`", // 6
    "export D=1; rm -rf /", // 7: shell syntax
    "export E=1 F=2", // 8: a second word
    'export G="unclosed', // 9
    "export H='unclosed", // 10
    "export I=$1", // 11: a special parameter
    "export J=${K:-default}", // 12: an operator expansion
    "unset PATH", // 13
    "export L", // 14: no value
    "export OK=fine", // 15: applied
    "export M=a|b", // 16
    "export N=trailing\\", // 17
  ].join("\n");
  const parsed = parseEnvFile(text);
  assertEquals(parsed.ignored.map((i) => i.line), [
    1,
    2,
    3,
    4,
    5,
    6,
    7,
    8,
    9,
    10,
    11,
    12,
    13,
    14,
    16,
    17,
  ]);
  assertEquals(parsed.assignments.map((a) => a.name), ["OK"]);
  const reason = (line: number) => parsed.ignored.find((i) => i.line === line)?.reason;
  assertEquals(reason(1), "it is not an assignment: write NAME=value or export NAME=value");
  assertEquals(
    reason(2),
    '"9X" is not a variable name: use letters, digits and "_", not starting with a digit',
  );
  assertEquals(reason(4), "command substitution is not run: write the value itself");
  assertEquals(reason(7), '";" is shell syntax, which is not run: quote the value');
  assertEquals(reason(8), "something follows the value: write one assignment per line");
  assertEquals(reason(9), 'its " quote is not closed on this line');
  assertEquals(reason(11), '"$1" is not expanded: only $NAME and ${NAME} are');
  assertEquals(reason(12), '"${K:-default}" is not expanded: only $NAME and ${NAME} are');
});

Deno.test("the session's env files live beside raw.jsonl, in session-env, with an absolute path", () => {
  assertEquals(
    sessionEnvDirFor("/state/llama-agent/sessions/abc/raw.jsonl"),
    "/state/llama-agent/sessions/abc/session-env",
  );
  assert(sessionEnvDirFor("./.local/state/x/raw.jsonl").startsWith("/"));
});

Deno.test("each hook gets a fresh empty 0600 file in a 0700 directory, named by its position", async () => {
  await withTempDir({}, async (root) => {
    const dir = `${root}/session-env`;
    const files = await SessionStartEnvFiles.forFiring(dir, () => {});
    const [first, second] = await Promise.all([files.create(0), files.create(1)]);
    assertEquals(first, `${dir}/sessionstart-hook-0.sh`);
    assertEquals(second, `${dir}/sessionstart-hook-1.sh`);
    assertEquals((await Deno.stat(dir)).mode! & 0o777, 0o700);
    for (const path of [first, second]) {
      const info = await Deno.stat(path);
      assertEquals(info.mode! & 0o777, 0o600);
      assertEquals(info.size, 0);
    }
  });
});

Deno.test("a new firing starts from empty files: what an earlier one left is gone", async () => {
  await withTempDir({}, async (root) => {
    const dir = `${root}/session-env`;
    const earlier = await SessionStartEnvFiles.forFiring(dir, () => {});
    await Deno.writeTextFile(await earlier.create(0), "export OLD=1\n");
    await Deno.writeTextFile(await earlier.create(3), "export OLD3=1\n");
    const later = await SessionStartEnvFiles.forFiring(dir, () => {});
    assertEquals((await Deno.stat(await later.create(0))).size, 0);
    const names = [];
    for await (const entry of Deno.readDir(dir)) names.push(entry.name);
    assertEquals(names, ["sessionstart-hook-0.sh"]);
    assertEquals(await later.read(), []);
  });
});

Deno.test("the files are read in position order; bad lines and unreadable files are logged", async () => {
  await withTempDir({}, async (root) => {
    const dir = `${root}/session-env`;
    const logs: string[] = [];
    const files = await SessionStartEnvFiles.forFiring(dir, (line) => logs.push(line));
    const [a, b, c, d] = await Promise.all([0, 1, 2, 3].map((i) => files.create(i)));
    await Deno.writeTextFile(b!, "export FOO=second\nexport B=$FOO\n");
    await Deno.writeTextFile(a!, "export FOO=first\nrm -rf ~\n");
    await Deno.remove(c!);
    await Deno.remove(d!);
    await Deno.mkdir(d!);
    const assignments = await files.read();
    assertEquals(Object.fromEntries(resolveEnvAssignments(assignments, () => undefined)), {
      FOO: "second",
      B: "second",
    });
    assertEquals(logs, [
      `Ignored line 2 of CLAUDE_ENV_FILE "${a}": ` +
      "it is not an assignment: write NAME=value or export NAME=value",
      `Cannot read CLAUDE_ENV_FILE "${d}": it is a directory, not a regular file; ` +
      "none of its variables reach the shell",
    ]);
  });
});

Deno.test("when no file can be made the hook gets no CLAUDE_ENV_FILE, and that is logged", async () => {
  await withTempDir({ "session-env": "a file where the directory should be" }, async (root) => {
    const logs: string[] = [];
    const files = await SessionStartEnvFiles.forFiring(`${root}/session-env`, (l) => logs.push(l));
    assertEquals(await files.variableFor(0), {});
    const said = logs.at(-1)!;
    assert(said.startsWith(`Cannot create a CLAUDE_ENV_FILE in "${root}/session-env": `), said);
    assert(said.endsWith("; the SessionStart hook runs without one"), said);
    assertEquals(await files.read(), []);
  });
});

Deno.test("a line holding a NUL byte sets nothing: no shell could start with it set", () => {
  const parsed = parseEnvFile("export BAD=a\0b\nexport OK=1\n");
  assertEquals(parsed.ignored, [{
    line: 1,
    reason: "it holds a NUL byte, which no variable can hold",
  }]);
  assertEquals(sets("export BAD=a\0b\nexport OK=1\n"), { OK: "1" });
});

Deno.test("a link the hook put in place of its file is not followed: what it points at sets nothing", async () => {
  await withTempDir({ "elsewhere.env": "export STOLEN=yes\n" }, async (root) => {
    const logs: string[] = [];
    const files = await SessionStartEnvFiles.forFiring(`${root}/session-env`, (l) => logs.push(l));
    const path = await files.create(0);
    await Deno.remove(path);
    await Deno.symlink(`${root}/elsewhere.env`, path);
    assertEquals(await files.read(), []);
    assertEquals(logs, [
      `Cannot read CLAUDE_ENV_FILE "${path}": it is a symbolic link, not the file the agent ` +
      "made; none of its variables reach the shell",
    ]);
  });
});

Deno.test("a FIFO in place of the file is refused without waiting for a writer", async () => {
  await withTempDir({}, async (root) => {
    const logs: string[] = [];
    const files = await SessionStartEnvFiles.forFiring(`${root}/session-env`, (l) => logs.push(l));
    const path = await files.create(0);
    await Deno.remove(path);
    const made = await new Deno.Command("mkfifo", { args: [path] }).output();
    assert(made.success, "mkfifo failed");
    assertEquals(await files.read(), []);
    assertEquals(logs, [
      `Cannot read CLAUDE_ENV_FILE "${path}": it is a FIFO, not a regular file; ` +
      "none of its variables reach the shell",
    ]);
  });
});

Deno.test("a session-env directory that is a link is not used: no file is made or removed where it points", async () => {
  await withTempDir({ "target/sessionstart-hook-0.sh": "keep me" }, async (root) => {
    await Deno.symlink(`${root}/target`, `${root}/session-env`);
    const logs: string[] = [];
    const files = await SessionStartEnvFiles.forFiring(`${root}/session-env`, (l) => logs.push(l));
    assertEquals(await files.variableFor(0), {});
    assertEquals(await Deno.readTextFile(`${root}/target/sessionstart-hook-0.sh`), "keep me");
    assertEquals(logs, [
      `Cannot create a CLAUDE_ENV_FILE in "${root}/session-env": it is a symbolic link: remove ` +
      "it, and the agent makes the directory; the SessionStart hook runs without one",
    ]);
  });
});

Deno.test("a file of many bad lines (binary, say) logs the first 20 and a count of the rest", async () => {
  await withTempDir({}, async (root) => {
    const logs: string[] = [];
    const files = await SessionStartEnvFiles.forFiring(`${root}/session-env`, (l) => logs.push(l));
    const path = await files.create(0);
    await Deno.writeTextFile(path, "junk\n".repeat(25) + "export OK=1\n");
    const assignments = await files.read();
    assertEquals(Object.fromEntries(resolveEnvAssignments(assignments, () => undefined)), {
      OK: "1",
    });
    assertEquals(logs.length, 21);
    assertEquals(logs.at(-1), `Ignored 5 more lines of CLAUDE_ENV_FILE "${path}"`);
  });
});

Deno.test("a file over 1 MiB is not read at all, and that is logged", async () => {
  await withTempDir({}, async (root) => {
    const logs: string[] = [];
    const files = await SessionStartEnvFiles.forFiring(`${root}/session-env`, (l) => logs.push(l));
    const path = await files.create(0);
    await Deno.writeTextFile(path, "export BIG=1\n" + "#".repeat(1024 * 1024));
    assertEquals(await files.read(), []);
    assertEquals(logs, [
      `Cannot read CLAUDE_ENV_FILE "${path}": it is over the 1 MiB limit (1048589 bytes); ` +
      "none of its variables reach the shell",
    ]);
  });
});
