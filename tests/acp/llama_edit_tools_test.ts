import type { ContentBlock } from "@agentclientprotocol/sdk";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import type { GenerateRequest } from "../../src/model/model.ts";
import { clientFs, withInMemoryAgent } from "./in_memory_agent.ts";
import { callTool, reply, steppedModel } from "./fake_models.ts";
import { logging, readLog, seen, settings } from "./hook_fixtures.ts";

const text = (t: string): ContentBlock[] => [{ type: "text", text: t }];

function oneCall(name: string, input: unknown, requests: GenerateRequest[] = []) {
  return steppedModel([
    (r) => (requests.push(r), callTool(name, input)(r)),
    (r) => (requests.push(r), reply("done")(r)),
  ]);
}

Deno.test("fs_edit in a session changes the file, shows the client the diff and fires PostToolUse for fs_edit|fs_write", async () => {
  const requests: GenerateRequest[] = [];
  const input = { file_path: "hello.txt", old_string: "beta", new_string: "BETA" };
  await withInMemoryAgent({
    files: {
      "hello.txt": "alpha\nbeta\nalpha\n",
      ".claude/settings.json": settings({
        PostToolUse: [["fs_edit|fs_write", logging("post.log")]],
      }),
    },
    model: oneCall("fs_edit", input, requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("edit") });
    assertEquals(response.stopReason, "end_turn");
    assertEquals(await Deno.readTextFile(`${t.cwd}/hello.txt`), "alpha\nBETA\nalpha\n");
    const diff = {
      type: "diff" as const,
      path: `${t.cwd}/hello.txt`,
      oldText: "alpha\nbeta\nalpha\n",
      newText: "alpha\nBETA\nalpha\n",
    };
    // The user was asked with the change in view, and the finished call shows it too.
    assertEquals(t.permissionRequests.length, 1);
    assertEquals(t.permissionRequests[0]!.toolCall.content, [diff]);
    const completed = t.updates.map((u) => u.update).find((u) =>
      u.sessionUpdate === "tool_call_update" && u.status === "completed"
    );
    assert(completed?.sessionUpdate === "tool_call_update");
    assertEquals(completed.content, [diff]);
    const [post] = await readLog(`${t.cwd}/post.log`);
    assertEquals(post?.tool_name, "fs_edit");
    assertEquals(post?.tool_input, input);
    assertEquals(post?.tool_response, {
      filePath: `${t.cwd}/hello.txt`,
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
    });
    assertStringIncludes(seen(requests[1]!), "tool fs_edit: Edited hello.txt: 1 replacement");
  });
});

Deno.test("fs_edit goes through the client's fs when it advertises it", async () => {
  const calls: string[] = [];
  await withInMemoryAgent({
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    files: { "notes.txt": "on disk\n" },
    model: oneCall("fs_edit", {
      file_path: "notes.txt",
      old_string: "unsaved",
      new_string: "saved",
    }),
    clientHandlers: clientFs(calls, "unsaved buffer\n"),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("edit") });
    assertEquals(calls.at(-1), `write ${t.cwd}/notes.txt saved buffer\n`);
    assertEquals(await Deno.readTextFile(`${t.cwd}/notes.txt`), "on disk\n", "disk untouched");
  });
});

Deno.test("fs_grep and fs_glob in a session run without asking and report relative paths", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: { "src/a.ts": "export const a = 1;\n", "src/b.ts": "const b = 2;\n" },
    model: steppedModel([
      (r) => (requests.push(r), callTool("fs_grep", { pattern: "export" })(r)),
      (r) => (requests.push(r), callTool("glob", { pattern: "src/*.ts" })(r)),
      (r) => (requests.push(r), reply("done")(r)),
    ]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("look") });
    assertEquals(t.permissionRequests.length, 0, "searches only look");
    assertStringIncludes(seen(requests[1]!), "tool fs_grep: Found 1 file\nsrc/a.ts");
    assertStringIncludes(seen(requests[2]!), "tool glob: src/a.ts\nsrc/b.ts");
  });
});
