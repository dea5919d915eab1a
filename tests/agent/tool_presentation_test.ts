import { assertEquals } from "../helpers/assert.ts";
import {
  shownPath,
  toolCallPresentation,
  toolKind,
} from "../../src/agent/tools/tool_presentation.ts";

const cwd = "/home/u/proj";

Deno.test("kinds: execute for shell, read, edit, other for MCP", () => {
  assertEquals(toolKind("shell"), "execute");
  assertEquals(toolKind("fs_read"), "read");
  assertEquals(toolKind("fs_write"), "edit");
  assertEquals(toolKind("fs_edit"), "edit");
  assertEquals(toolKind("fs_grep"), "search");
  assertEquals(toolKind(undefined), "other");
});

Deno.test("a read is titled by its path relative to the cwd, with its line range", () => {
  assertEquals(
    toolCallPresentation({
      name: "fs_read",
      capability: "fs_read",
      operation: { capability: "fs_read", path: "notes.txt" },
      cwd,
    }),
    { title: "Read notes.txt", kind: "read", locations: [{ path: "/home/u/proj/notes.txt" }] },
  );
  assertEquals(
    toolCallPresentation({
      name: "read_file",
      capability: "fs_read",
      operation: { capability: "fs_read", path: "/etc/hosts", offset: 10, limit: 20 },
      cwd,
    }),
    {
      title: "Read /etc/hosts (lines 10-29)",
      kind: "read",
      locations: [{ path: "/etc/hosts", line: 10 }],
    },
  );
  assertEquals(
    toolCallPresentation({
      name: "fs_read",
      capability: "fs_read",
      operation: { capability: "fs_read", path: "a.ts", offset: 5 },
      cwd,
    }).title,
    "Read a.ts (from line 5)",
  );
});

Deno.test("a write is titled by its path, with its location", () => {
  assertEquals(
    toolCallPresentation({
      name: "fs_write",
      capability: "fs_write",
      operation: { capability: "fs_write", path: "src/x.ts", content: "" },
      cwd,
    }),
    { title: "Write src/x.ts", kind: "edit", locations: [{ path: "/home/u/proj/src/x.ts" }] },
  );
});

Deno.test("an edit is titled by its path; a search by its pattern and where it looks", () => {
  assertEquals(
    toolCallPresentation({
      name: "fs_edit",
      capability: "fs_edit",
      operation: {
        capability: "fs_edit",
        path: "src/x.ts",
        oldString: "a",
        newString: "b",
        replaceAll: false,
      },
      cwd,
    }),
    { title: "Edit src/x.ts", kind: "edit", locations: [{ path: "/home/u/proj/src/x.ts" }] },
  );
  assertEquals(
    toolCallPresentation({
      name: "fs_glob",
      capability: "fs_glob",
      operation: { capability: "fs_glob", pattern: "**/*.ts", path: "src" },
      cwd,
    }),
    { title: "Find `**/*.ts` in src", kind: "search", locations: [] },
  );
  assertEquals(
    toolCallPresentation({
      name: "grep",
      capability: "fs_grep",
      operation: {
        capability: "fs_grep",
        pattern: "TODO",
        outputMode: "content",
        ignoreCase: false,
        lineNumbers: true,
        before: 0,
        after: 0,
        multiline: false,
        offset: 0,
      },
      cwd,
    }).title,
    "Search `TODO`",
  );
});

Deno.test("a command is titled by its first line, cut short, as inline code", () => {
  const present = (command: string) =>
    toolCallPresentation({
      name: "shell",
      capability: "shell",
      operation: { capability: "shell", command, timeoutMs: 1000 },
      cwd,
    });
  assertEquals(present("ls -la"), { title: "Run `ls -la`", kind: "execute", locations: [] });
  assertEquals(present("echo `date`").title, "Run `` echo `date` ``");
  assertEquals(present("make\nmake test").title, "Run `make…`");
  assertEquals(present("x".repeat(100)).title, `Run \`${"x".repeat(80)}…\``);
});

Deno.test("invalid input and MCP tools are titled by the tool name", () => {
  assertEquals(
    toolCallPresentation({ name: "shell", capability: "shell", operation: undefined, cwd }),
    { title: "shell", kind: "execute", locations: [] },
  );
  assertEquals(
    toolCallPresentation({
      name: "mcp__gh__issue",
      capability: undefined,
      operation: undefined,
      cwd,
    }),
    { title: "mcp__gh__issue", kind: "other", locations: [] },
  );
});

Deno.test("paths are shown relative inside the cwd, absolute outside", () => {
  assertEquals(shownPath("/home/u/proj/a/b.ts", cwd), "a/b.ts");
  assertEquals(shownPath("/home/u/other.ts", cwd), "/home/u/other.ts");
  assertEquals(shownPath("/home/u/proj/..hidden", cwd), "..hidden");
  assertEquals(shownPath(cwd, cwd), ".");
});
