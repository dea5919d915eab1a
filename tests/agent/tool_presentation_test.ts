import { assertEquals } from "../helpers/assert.ts";
import { shownPath, toolCallPresentation, toolKind } from "../../src/agent/tool_presentation.ts";

const cwd = "/home/u/proj";

Deno.test("kinds: execute for shell, read, edit, other for MCP", () => {
  assertEquals(toolKind("shell"), "execute");
  assertEquals(toolKind("fs_read"), "read");
  assertEquals(toolKind("fs_write"), "edit");
  assertEquals(toolKind(undefined), "other");
});

Deno.test("a read is titled by its path relative to the cwd, with its line range", () => {
  assertEquals(
    toolCallPresentation({
      name: "fs_read",
      capability: "fs_read",
      input: { file_path: "notes.txt" },
      cwd,
    }),
    { title: "Read notes.txt", kind: "read", locations: [{ path: "/home/u/proj/notes.txt" }] },
  );
  assertEquals(
    toolCallPresentation({
      name: "read_file",
      capability: "fs_read",
      input: { path: "/etc/hosts", offset: 10, limit: 20 },
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
      input: { file_path: "a.ts", offset: 5 },
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
      input: { file_path: "src/x.ts", content: "" },
      cwd,
    }),
    { title: "Write src/x.ts", kind: "edit", locations: [{ path: "/home/u/proj/src/x.ts" }] },
  );
});

Deno.test("a command is titled by its first line, cut short, as inline code", () => {
  const present = (command: string) =>
    toolCallPresentation({ name: "shell", capability: "shell", input: { command }, cwd });
  assertEquals(present("ls -la"), { title: "Run `ls -la`", kind: "execute", locations: [] });
  assertEquals(present("echo `date`").title, "Run `` echo `date` ``");
  assertEquals(present("make\nmake test").title, "Run `make…`");
  assertEquals(present("x".repeat(100)).title, `Run \`${"x".repeat(80)}…\``);
});

Deno.test("invalid input and MCP tools are titled by the tool name", () => {
  assertEquals(
    toolCallPresentation({ name: "shell", capability: "shell", input: {}, cwd }),
    { title: "shell", kind: "execute", locations: [] },
  );
  assertEquals(
    toolCallPresentation({ name: "mcp__gh__issue", capability: undefined, input: {}, cwd }),
    { title: "mcp__gh__issue", kind: "other", locations: [] },
  );
});

Deno.test("paths are shown relative inside the cwd, absolute outside", () => {
  assertEquals(shownPath("/home/u/proj/a/b.ts", cwd), "a/b.ts");
  assertEquals(shownPath("/home/u/other.ts", cwd), "/home/u/other.ts");
  assertEquals(shownPath("/home/u/proj/..hidden", cwd), "..hidden");
  assertEquals(shownPath(cwd, cwd), ".");
});
