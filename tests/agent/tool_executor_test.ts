import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { allowedRoots } from "../../src/os/files/allowed_roots.ts";
import { ClientFileAccess } from "../../src/agent/files/client_file_access.ts";
import { ClientShellRunner } from "../../src/agent/shell/client_shell_runner.ts";
import { LocalFileAccess } from "../../src/agent/files/local_file_access.ts";
import { LocalShellRunner } from "../../src/agent/shell/local_shell_runner.ts";
import { llamaToolKit } from "../../src/agent/tools/llama_tool_kit.ts";
import { DEFAULT_READ_LINES, fileWriteDiff } from "../../src/agent/tools/tool_executor.ts";
import {
  failedExecution,
  type ToolExecution,
  type ToolExecutorDeps,
} from "../../src/agent/tools/tool_kit.ts";
import type { ToolCapability } from "../../src/profile/tool_identity.ts";
import { fakeClient } from "./fake_client.ts";
import { withTempDir } from "./temp_dir.ts";

const ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" };

async function localDeps(cwd: string, signal?: AbortSignal): Promise<ToolExecutorDeps> {
  const roots = await allowedRoots({ launchCwd: cwd, home: undefined });
  return {
    cwd,
    roots,
    files: new LocalFileAccess({ cwd, roots }),
    shell: new LocalShellRunner({ env: ENV }),
    signal,
  };
}

/** A call as the llama profile runs it: parsed by its kit, then executed (bad input fails). */
async function executeTool(
  call: { name: string; capability: ToolCapability; input: unknown },
  deps: ToolExecutorDeps,
): Promise<ToolExecution> {
  const kit = llamaToolKit();
  const parsed = kit.parse(call.capability, call.input, call.name, deps.cwd);
  return parsed.ok ? await kit.execute(parsed.operation, deps) : failedExecution(parsed.message);
}

const text = (value: string) => ({
  type: "content" as const,
  content: { type: "text" as const, text: value },
});

Deno.test("fs_read returns the file to the model, with a location and Claude's response shape", async () => {
  await withTempDir({ "notes.txt": "one\ntwo\nthree\n" }, async (dir) => {
    const result = await executeTool(
      { name: "read_file", capability: "fs_read", input: { path: "notes.txt" } },
      await localDeps(dir),
    );
    assertEquals(result, {
      status: "completed",
      modelText: "one\ntwo\nthree\n",
      content: [text("one\ntwo\nthree\n")],
      rawOutput: {
        type: "text",
        file: {
          filePath: `${dir}/notes.txt`,
          content: "one\ntwo\nthree\n",
          numLines: 3,
          startLine: 1,
        },
      },
      locations: [{ path: `${dir}/notes.txt` }],
      interrupted: false,
    });
  });
});

Deno.test("fs_read with offset and limit returns those lines", async () => {
  await withTempDir({ "notes.txt": "one\ntwo\nthree\nfour\n" }, async (dir) => {
    const result = await executeTool(
      {
        name: "fs_read",
        capability: "fs_read",
        input: { file_path: "notes.txt", offset: 2, limit: 2 },
      },
      await localDeps(dir),
    );
    assertEquals(result.modelText, "two\nthree\n");
    assertEquals(result.locations, [{ path: `${dir}/notes.txt`, line: 2 }]);
    const past = await executeTool(
      { name: "fs_read", capability: "fs_read", input: { file_path: "notes.txt", offset: 9 } },
      await localDeps(dir),
    );
    assertEquals(past.status, "completed");
    assertEquals(past.modelText, "(no lines from line 9: the file is shorter)");
  });
});

Deno.test("fs_read without a limit shows the first lines and says how to read on", async () => {
  const lines = Array.from({ length: DEFAULT_READ_LINES + 500 }, (_, i) => `line ${i + 1}\n`);
  await withTempDir({ "long.txt": lines.join(""), "empty.txt": "" }, async (dir) => {
    const deps = await localDeps(dir);
    const result = await executeTool(
      { name: "fs_read", capability: "fs_read", input: { file_path: "long.txt" } },
      deps,
    );
    assert(result.modelText.startsWith("line 1\n"));
    assert(result.modelText.includes(`line ${DEFAULT_READ_LINES}\n`));
    assert(!result.modelText.includes(`line ${DEFAULT_READ_LINES + 1}\n`));
    assertStringIncludes(
      result.modelText,
      `[showing lines 1-${DEFAULT_READ_LINES}; the file goes on: read more with offset ` +
        `${DEFAULT_READ_LINES + 1}]`,
    );
    const rest = await executeTool(
      {
        name: "fs_read",
        capability: "fs_read",
        input: { file_path: "long.txt", offset: DEFAULT_READ_LINES + 1 },
      },
      deps,
    );
    assertEquals(rest.modelText, lines.slice(DEFAULT_READ_LINES).join(""));
    const empty = await executeTool(
      { name: "fs_read", capability: "fs_read", input: { file_path: "empty.txt" } },
      deps,
    );
    assertEquals(empty.modelText, "(the file is empty)");
  });
});

Deno.test("fs_read of a missing or refused path fails with a clear message", async () => {
  await withTempDir({ "p/a.txt": "a" }, async (base) => {
    const deps = await localDeps(`${base}/p`);
    const missing = await executeTool(
      { name: "fs_read", capability: "fs_read", input: { file_path: "nope.txt" } },
      deps,
    );
    assertEquals(missing.status, "failed");
    assertEquals(missing.modelText, 'Cannot read "nope.txt": no such file');
    assertEquals(missing.rawOutput, { error: 'Cannot read "nope.txt": no such file' });
    assertEquals(missing.content, [text('Cannot read "nope.txt": no such file')]);
    const refused = await executeTool(
      { name: "fs_read", capability: "fs_read", input: { file_path: "/etc/hostname" } },
      deps,
    );
    assertEquals(refused.status, "failed");
    assertStringIncludes(refused.modelText, "outside the allowed directories");
  });
});

Deno.test("fs_write of a new file shows a diff with oldText null and creates the file", async () => {
  await withTempDir({}, async (dir) => {
    const result = await executeTool(
      {
        name: "fs_write",
        capability: "fs_write",
        input: { file_path: "src/x.ts", content: "a\nb\n" },
      },
      await localDeps(dir),
    );
    assertEquals(result, {
      status: "completed",
      modelText: "Created src/x.ts (2 lines)",
      content: [{ type: "diff", path: `${dir}/src/x.ts`, oldText: null, newText: "a\nb\n" }],
      rawOutput: { type: "create", filePath: `${dir}/src/x.ts`, content: "a\nb\n" },
      locations: [{ path: `${dir}/src/x.ts` }],
      interrupted: false,
    });
    assertEquals(await Deno.readTextFile(`${dir}/src/x.ts`), "a\nb\n");
  });
});

Deno.test("fs_write over an existing file shows the old text in the diff", async () => {
  await withTempDir({ "a.txt": "old\n" }, async (dir) => {
    const result = await executeTool(
      { name: "write_file", capability: "fs_write", input: { path: "a.txt", content: "new\n" } },
      await localDeps(dir),
    );
    assertEquals(result.status, "completed");
    assertEquals(result.modelText, "Updated a.txt (1 line)");
    assertEquals(result.content, [
      { type: "diff", path: `${dir}/a.txt`, oldText: "old\n", newText: "new\n" },
    ]);
    assertEquals(result.rawOutput.type, "update");
    assertEquals(await Deno.readTextFile(`${dir}/a.txt`), "new\n");
  });
});

Deno.test("fs_write outside the roots fails and writes nothing", async () => {
  await withTempDir({ "p/a.txt": "a" }, async (base) => {
    const result = await executeTool(
      { name: "fs_write", capability: "fs_write", input: { file_path: "../x.txt", content: "x" } },
      await localDeps(`${base}/p`),
    );
    assertEquals(result.status, "failed");
    assertEquals(
      result.modelText,
      `Cannot write "../x.txt": it resolves to "${base}/x.txt", which is outside the allowed ` +
        `directories ("${base}/p")`,
    );
    assertEquals(await Deno.stat(`${base}/x.txt`).then(() => true, () => false), false);
  });
});

Deno.test("the diff for the permission prompt is read through the client when it is the door", async () => {
  const client = fakeClient({
    "fs/read_text_file": (params) => {
      if (params.path === "/p/old.txt") return { content: "before" };
      throw new Error("No such file or directory (os error 2)");
    },
  });
  const files = new ClientFileAccess({ sessionId: "s", cwd: "/p", request: client.request });
  assertEquals(
    await fileWriteDiff(
      { capability: "fs_write", path: "old.txt", content: "after" },
      { cwd: "/p", files },
    ),
    {
      ok: true,
      content: { type: "diff", path: "/p/old.txt", oldText: "before", newText: "after" },
    },
  );
  assertEquals(
    await fileWriteDiff({ capability: "fs_write", path: "new.txt", content: "x" }, {
      cwd: "/p",
      files,
    }),
    {
      ok: true,
      content: { type: "diff", path: "/p/new.txt", oldText: null, newText: "x" },
    },
  );
});

Deno.test("shell: exit 0 completes with the output; a non-zero exit fails with `Exit code N` and the output", async () => {
  await withTempDir({}, async (dir) => {
    const deps = await localDeps(dir);
    const ok = await executeTool(
      { name: "shell", capability: "shell", input: { command: "echo hi" } },
      deps,
    );
    assertEquals(ok.status, "completed");
    assertEquals(ok.modelText, "hi\n");
    assertEquals(ok.content, [text("hi\n")]);
    assertEquals(ok.rawOutput.exitCode, 0);
    assertEquals(ok.rawOutput.stdout, "hi\n");
    const bad = await executeTool(
      { name: "terminal", capability: "shell", input: { command: "echo oops >&2; exit 3" } },
      deps,
    );
    assertEquals(bad.status, "failed");
    assertEquals(bad.modelText, "Exit code 3\noops");
    assertEquals(bad.content, [text("Exit code 3\noops")]);
    assertEquals(bad.interrupted, false);
    assertEquals([bad.rawOutput.exitCode, bad.rawOutput.stdout], [3, "oops\n"]);
    const silent = await executeTool(
      { name: "shell", capability: "shell", input: { command: "true" } },
      deps,
    );
    assertEquals(silent.modelText, "(no output)");
  });
});

Deno.test("shell: a timeout and a cancel are failures in Claude Code's words, a cancel is an interrupt", async () => {
  await withTempDir({}, async (dir) => {
    const timedOut = await executeTool(
      {
        name: "shell",
        capability: "shell",
        input: { command: "echo begun; sleep 30", timeout: 200 },
      },
      await localDeps(dir),
    );
    assertEquals(timedOut.status, "failed");
    assertEquals(timedOut.interrupted, false);
    assertEquals(timedOut.modelText, "Exit code 143\nbegun\nCommand timed out after 0.2s");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const cancelled = await executeTool(
      { name: "shell", capability: "shell", input: { command: "sleep 30" } },
      await localDeps(dir, controller.signal),
    );
    assertEquals(cancelled.status, "failed");
    assertEquals(cancelled.interrupted, true);
    assertEquals(cancelled.modelText, "Command was cancelled by the user");
  });
});

Deno.test("shell in a client terminal embeds the terminal in the content", async () => {
  const client = fakeClient({
    "terminal/create": () => ({ terminalId: "t-9" }),
    "terminal/wait_for_exit": () => ({ exitCode: 0 }),
    "terminal/output": () => ({ output: "done\n", truncated: true }),
    "terminal/release": () => null,
  });
  const embedded: string[] = [];
  const result = await executeTool(
    { name: "shell", capability: "shell", input: { command: "make" } },
    {
      cwd: "/p",
      roots: ["/p"],
      files: new ClientFileAccess({ sessionId: "s", cwd: "/p", request: client.request }),
      shell: new ClientShellRunner({ sessionId: "s", request: client.request }),
      onTerminal: (id) => {
        embedded.push(id);
      },
    },
  );
  assertEquals(embedded, ["t-9"]);
  assertEquals(result.status, "completed");
  assertEquals(result.content, [{ type: "terminal", terminalId: "t-9" }]);
  assertEquals(result.modelText, "done\n[output truncated: only its end is shown]");
});

Deno.test("bad input and an aborted signal fail without running anything", async () => {
  await withTempDir({}, async (dir) => {
    const bad = await executeTool(
      { name: "fs_write", capability: "fs_write", input: { file_path: "a.txt" } },
      await localDeps(dir),
    );
    assertEquals(bad.status, "failed");
    assertEquals(
      bad.modelText,
      'Invalid input for fs_write: "content" is required and must be a string. ' +
        'Expected {"file_path": string, "content": string}',
    );
    const aborted = await executeTool(
      { name: "fs_write", capability: "fs_write", input: { file_path: "a.txt", content: "x" } },
      await localDeps(dir, AbortSignal.abort()),
    );
    assertEquals(aborted.status, "failed");
    assertEquals(aborted.interrupted, true);
    assertEquals([...Deno.readDirSync(dir)], []);
  });
});
