import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { ClientFileAccess } from "../../src/agent/files/client_file_access.ts";
import { llamaToolKit } from "../../src/agent/tools/llama_tool_kit.ts";
import { LocalShellRunner } from "../../src/agent/shell/local_shell_runner.ts";
import { proposedFileChange } from "../../src/agent/permissions/proposed_change.ts";
import type { ToolExecution, ToolExecutorDeps } from "../../src/agent/tools/tool_kit.ts";
import { fakeClient } from "./fake_client.ts";
import { localDeps, runLlamaTool } from "./llama_kit_deps.ts";
import { withTempDir } from "./temp_dir.ts";

function edit(input: unknown, deps: ToolExecutorDeps, name = "fs_edit"): Promise<ToolExecution> {
  return runLlamaTool("fs_edit", input, deps, name);
}

Deno.test("fs_edit replaces the text, shows the client a diff and gives hooks the patch", async () => {
  await withTempDir({ "hello.txt": "alpha\nbeta\nalpha\n" }, async (dir) => {
    const result = await edit(
      { file_path: "hello.txt", old_string: "beta", new_string: "BETA" },
      localDeps(dir),
    );
    assertEquals(result, {
      status: "completed",
      modelText: "Edited hello.txt: 1 replacement",
      content: [{
        type: "diff",
        path: `${dir}/hello.txt`,
        oldText: "alpha\nbeta\nalpha\n",
        newText: "alpha\nBETA\nalpha\n",
      }],
      rawOutput: {
        filePath: `${dir}/hello.txt`,
        oldString: "beta",
        newString: "BETA",
        replaceAll: false,
        replacements: 1,
        structuredPatch: [{
          oldStart: 1,
          oldLines: 3,
          newStart: 1,
          newLines: 3,
          lines: [" alpha", "-beta", "+BETA", " alpha"],
        }],
      },
      locations: [{ path: `${dir}/hello.txt` }],
      interrupted: false,
    });
    assertEquals(await Deno.readTextFile(`${dir}/hello.txt`), "alpha\nBETA\nalpha\n");
  });
});

Deno.test("fs_edit with replace_all (sent as a string) replaces every occurrence", async () => {
  await withTempDir({ "hello.txt": "alpha\nbeta\nalpha\n" }, async (dir) => {
    const result = await edit(
      { path: "hello.txt", old_string: "alpha", new_string: "ALPHA", replace_all: "true" },
      localDeps(dir),
      "edit_file",
    );
    assertEquals(result.modelText, "Edited hello.txt: 2 replacements");
    assertEquals(await Deno.readTextFile(`${dir}/hello.txt`), "ALPHA\nbeta\nALPHA\n");
  });
});

Deno.test("fs_edit that cannot be made fails, tells the model what to do and writes nothing", async () => {
  await withTempDir({ "a.txt": "one one\n" }, async (dir) => {
    const deps = localDeps(dir);
    const absent = await edit({ file_path: "a.txt", old_string: "two", new_string: "2" }, deps);
    assertEquals(absent.status, "failed");
    assertStringIncludes(
      absent.modelText,
      'Cannot edit "a.txt": the text to replace was not found in the file. Read the file again',
    );
    assertEquals(absent.rawOutput, { error: absent.modelText });
    const twice = await edit({ file_path: "a.txt", old_string: "one", new_string: "1" }, deps);
    assertStringIncludes(twice.modelText, "occurs 2 times");
    assertStringIncludes(twice.modelText, "replace_all");
    const missing = await edit({ file_path: "b.txt", old_string: "x", new_string: "y" }, deps);
    assertStringIncludes(missing.modelText, 'Cannot edit "b.txt": no such file');
    const same = await edit({ file_path: "a.txt", old_string: "one", new_string: "one" }, deps);
    assertStringIncludes(same.modelText, "nothing would change");
    const outside = await edit(
      { file_path: "/etc/hostname", old_string: "a", new_string: "b" },
      deps,
    );
    assertStringIncludes(outside.modelText, "outside the allowed directories");
    assertEquals(await Deno.readTextFile(`${dir}/a.txt`), "one one\n");
  });
});

Deno.test("fs_edit with an empty old_string creates a missing file", async () => {
  await withTempDir({}, async (dir) => {
    const result = await edit(
      { file_path: "made.txt", old_string: "", new_string: "made by edit\n" },
      localDeps(dir),
    );
    assertEquals(result.modelText, "Created made.txt (1 line)");
    assertEquals(result.content, [
      { type: "diff", path: `${dir}/made.txt`, oldText: null, newText: "made by edit\n" },
    ]);
    assertEquals(result.rawOutput.structuredPatch, [
      { oldStart: 1, oldLines: 0, newStart: 1, newLines: 1, lines: ["+made by edit"] },
    ]);
  });
});

Deno.test("fs_edit reads and writes through the client's fs when it is the door", async () => {
  const buffers = new Map([["/p/src/a.ts", "export const a = 1;\n"]]);
  const client = fakeClient({
    "fs/read_text_file": (params) => {
      const content = buffers.get(String(params.path));
      if (content === undefined) throw new Error("No such file or directory (os error 2)");
      return { content };
    },
    "fs/write_text_file": (params) => {
      buffers.set(String(params.path), String(params.content));
      return null;
    },
  });
  const deps: ToolExecutorDeps = {
    cwd: "/p",
    roots: ["/p"],
    files: new ClientFileAccess({ sessionId: "s", cwd: "/p", request: client.request }),
    shell: new LocalShellRunner({ env: {} }),
  };
  const operation = {
    capability: "fs_edit",
    path: "src/a.ts",
    oldString: "1",
    newString: "2",
    replaceAll: false,
  } as const;
  assertEquals(await proposedFileChange(operation, deps), [{
    type: "diff",
    path: "/p/src/a.ts",
    oldText: "export const a = 1;\n",
    newText: "export const a = 2;\n",
  }]);
  const result = await llamaToolKit().execute(operation, deps);
  assertEquals(result.modelText, "Edited src/a.ts: 1 replacement");
  assertEquals(buffers.get("/p/src/a.ts"), "export const a = 2;\n");
  assertEquals(client.methods(), [
    "fs/read_text_file",
    "fs/read_text_file",
    "fs/write_text_file",
  ]);
  // An edit that cannot be made proposes no diff.
  assertEquals(await proposedFileChange({ ...operation, oldString: "nope" }, deps), []);
});
