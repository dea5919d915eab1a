/**
 * Bash keeps its directory under the real launcher too, with its real runtime permissions: a
 * `cd` in one call carries over to the next, and to the next PreToolUse payload's `cwd`.
 */
import { assertEquals } from "../helpers/assert.ts";
import { AcpHarness, type JsonObject } from "../helpers/acp_harness.ts";
import { textReply } from "../helpers/openai_dialects.ts";
import { startFakeServer } from "../helpers/openai_fake_server.ts";
import { textPrompt, withE2eProject } from "./e2e_project.ts";

/** A streamed call of `Bash` running `command`. */
function bashCall(id: string, command: string): object[] {
  const base = { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1764547200 };
  const call = {
    index: 0,
    id,
    type: "function",
    function: { name: "Bash", arguments: JSON.stringify({ command }) },
  };
  return [
    { ...base, choices: [{ index: 0, delta: { role: "assistant", tool_calls: [call] } }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
  ];
}

const SETTINGS = JSON.stringify({
  hooks: {
    PreToolUse: [{
      matcher: "Bash",
      hooks: [{
        type: "command",
        command: 'cat >> "$CLAUDE_PROJECT_DIR/pre.log"; echo >> "$CLAUDE_PROJECT_DIR/pre.log"',
      }],
    }],
  },
});

Deno.test("claude, real launcher: a cd carries over to the next Bash call and to the next payload's cwd", async () => {
  const server = startFakeServer({ models: [{ id: "served-model" }] });
  try {
    await withE2eProject({
      "project/.claude/settings.json": SETTINGS,
      "project/sub/.keep": "",
    }, async (p) => {
      server.reply(
        { kind: "stream", chunks: bashCall("call-1", "cd sub") },
        { kind: "stream", chunks: bashCall("call-2", "pwd > here.txt") },
        { kind: "stream", chunks: textReply("Done.") },
      );
      const agent = await AcpHarness.start({
        cwd: p.cwd,
        home: p.home,
        args: ["--endpoint", server.baseUrl, "--model", "served-model", "--compat", "claude"],
      });
      agent.onRequest(
        "session/request_permission",
        () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
      );
      try {
        await agent.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
        const created = await agent.call("session/new", { cwd: p.cwd, mcpServers: [] });
        const sessionId = (created as JsonObject).sessionId;
        const result = await agent.call("session/prompt", {
          sessionId,
          prompt: textPrompt("go"),
        }) as JsonObject;
        assertEquals(result.stopReason, "end_turn");
        assertEquals(await Deno.readTextFile(`${p.cwd}/sub/here.txt`), `${p.cwd}/sub\n`);
        const pre = (await Deno.readTextFile(`${p.cwd}/pre.log`)).split("\n")
          .filter((line) => line !== "").map((line) => JSON.parse(line).cwd);
        assertEquals(pre, [p.cwd, `${p.cwd}/sub`]);
        assertEquals((await agent.close()).code, 0);
      } finally {
        await agent.close({ allowViolations: true });
      }
    });
  } finally {
    await server.close();
  }
});
