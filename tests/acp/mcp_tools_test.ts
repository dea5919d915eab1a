/**
 * MCP tools in a session, through the whole agent (in memory) and the real fixture server: the
 * model is offered them, and each call passes the same seam as a built-in tool — hooks,
 * permissions, the transcript — while server failures stay the server's.
 */
import type { ContentBlock, SessionUpdate } from "@agentclientprotocol/sdk";
import type { GenerateRequest } from "../../src/model/model.ts";
import {
  parsePermissionRules,
  type PermissionRule,
} from "../../src/agent/permissions/permission_rules.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { livingPidsMatching } from "../hooks/process_probe.ts";
import { FIXTURE_TOOL_NAMES, stdioFixture } from "../mcp/fixture_servers.ts";
import { callTool, reply, type Step, steppedModel } from "./fake_models.ts";
import { logging, printing, readLog, seen, settings } from "./hook_fixtures.ts";
import { type InMemoryAgent, noticesOf, withInMemoryAgent } from "./in_memory_agent.ts";

const text = (t: string): ContentBlock[] => [{ type: "text", text: t }];

function rules(list: readonly { tool: string; decision: string }[]): readonly PermissionRule[] {
  const parsed = parsePermissionRules(JSON.stringify({ rules: list }), "rules.json");
  if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
  return parsed.rules;
}

/** Every MCP tool runs without asking (most tests are about what happens after the policy). */
const ALLOW_MCP = {
  mode: "rule-based" as const,
  rules: rules([{ tool: "mcp__.*", decision: "allow" }]),
};

/** Each step records what the model was given, then acts. */
function recorded(requests: GenerateRequest[], steps: readonly Step[]) {
  return steppedModel(steps.map((step) => (r: GenerateRequest) => (requests.push(r), step(r))));
}

function toolUpdates(t: InMemoryAgent): SessionUpdate[] {
  return t.updates.map((u) => u.update).filter((u) =>
    u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update"
  );
}

function finalUpdate(
  t: InMemoryAgent,
): Extract<SessionUpdate, { sessionUpdate: "tool_call_update" }> {
  const last = toolUpdates(t).at(-1);
  assert(last?.sessionUpdate === "tool_call_update", "a final tool_call_update");
  return last;
}

function notices(t: InMemoryAgent): string[] {
  return noticesOf(t.updates);
}

async function callLog(path: string): Promise<unknown[]> {
  return await readLog(path);
}

Deno.test("the model is offered each MCP tool by its mcp__ name, and a call runs after the user allows it", async () => {
  const requests: GenerateRequest[] = [];
  const log = await Deno.makeTempFile();
  await withInMemoryAgent({
    mcpServers: [stdioFixture({ args: ["--log", log] })],
    model: recorded(requests, [callTool("mcp__fixture__echo", { text: "hi" }), reply("done")]),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(response.stopReason, "end_turn");
    const offered = requests[0]!.tools.map((tool) => tool.name);
    assertEquals(offered.filter((name) => name.startsWith("mcp__")), FIXTURE_TOOL_NAMES);
    // The default mode asks before an MCP tool runs, and shows what would be sent.
    assertEquals(t.permissionRequests.length, 1);
    const asked = t.permissionRequests[0]!.toolCall;
    assertEquals(asked.title, "echo (MCP: fixture)");
    assertEquals(asked.kind, "other");
    assertStringIncludes(JSON.stringify(asked.content), '\\"text\\": \\"hi\\"');
    const announced = toolUpdates(t)[0]!;
    assert(announced.sessionUpdate === "tool_call");
    assertEquals(announced._meta, { tool_name: "mcp__fixture__echo" });
    assertEquals(announced.rawInput, { text: "hi" });
    const final = finalUpdate(t);
    assertEquals(final.status, "completed");
    assertEquals(final.content, [{ type: "content", content: { type: "text", text: "echo: hi" } }]);
    assertStringIncludes(seen(requests[1]!), "tool mcp__fixture__echo: echo: hi");
    assertEquals(await callLog(log), [{ tool: "echo", arguments: { text: "hi" } }]);
  });
  await Deno.remove(log);
});

Deno.test("a PreToolUse deny matched by mcp__fixture__.* blocks the call before the server sees it", async () => {
  const requests: GenerateRequest[] = [];
  const log = await Deno.makeTempFile();
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        PreToolUse: [[
          "mcp__fixture__.*",
          printing({
            hookSpecificOutput: {
              hookEventName: "PreToolUse",
              permissionDecision: "deny",
              permissionDecisionReason: "no fixture calls",
            },
          }),
        ]],
      }),
    },
    mcpServers: [stdioFixture({ args: ["--log", log] })],
    model: recorded(requests, [callTool("mcp__fixture__echo", { text: "hi" }), reply("done")]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(t.permissionRequests.length, 0, "a denied call asks nobody");
    const final = finalUpdate(t);
    assertEquals(final.status, "failed");
    assertEquals(final._meta, {
      "llama-agent/hook": { event: "PreToolUse", decision: "deny", reason: "no fixture calls" },
    });
    assertStringIncludes(
      seen(requests[1]!),
      "tool mcp__fixture__echo: PreToolUse:mcp__fixture__echo hook error: no fixture calls",
    );
    assertEquals(await callLog(log), [], "the server never got the call");
  });
  await Deno.remove(log);
});

Deno.test("hooks get the MCP tool's name, its arguments, and the server's result", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        PreToolUse: [["mcp__fixture__echo", logging("pre.log")]],
        PostToolUse: [
          ["mcp__fixture__echo", logging("post.log")],
          [
            "mcp__fixture__echo",
            printing({
              hookSpecificOutput: {
                hookEventName: "PostToolUse",
                additionalContext: "the echo was checked",
              },
            }),
          ],
        ],
      }),
    },
    mcpServers: [stdioFixture()],
    model: recorded(requests, [callTool("mcp__fixture__echo", { text: "hi" }), reply("done")]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    const [pre] = await readLog(`${t.cwd}/pre.log`);
    assertEquals(pre?.tool_name, "mcp__fixture__echo");
    assertEquals(pre?.tool_input, { text: "hi" });
    const [post] = await readLog(`${t.cwd}/post.log`);
    assertEquals(post?.tool_response, { content: [{ type: "text", text: "echo: hi" }] });
    assertStringIncludes(
      seen(requests[1]!),
      "PostToolUse:mcp__fixture__echo hook additional context: the echo was checked",
    );
  });
});

Deno.test("an MCP error result fires PostToolUseFailure with the server's message", async () => {
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        PostToolUse: [["mcp__.*", logging("post.log")]],
        PostToolUseFailure: [["mcp__.*", logging("failure.log")]],
      }),
    },
    mode: "rule-based",
    rules: rules([{ tool: "mcp__fixture__.*", decision: "allow" }]),
    mcpServers: [stdioFixture()],
    model: steppedModel([callTool("mcp__fixture__fail", { message: "disk on fire" }), reply("ok")]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(finalUpdate(t).status, "failed");
    assertEquals(await readLog(`${t.cwd}/post.log`), []);
    const [failure] = await readLog(`${t.cwd}/failure.log`);
    assertEquals(failure?.tool_name, "mcp__fixture__fail");
    assertEquals(failure?.error, "disk on fire");
    assertEquals(failure?.is_interrupt, false);
  });
});

Deno.test("permission rules match MCP names: a deny rule refuses, an allow rule asks nobody", async () => {
  const log = await Deno.makeTempFile();
  await withInMemoryAgent({
    mode: "rule-based",
    rules: rules([
      { tool: "mcp__fixture__crash", decision: "deny" },
      { tool: "mcp__fixture__.*", decision: "allow" },
    ]),
    mcpServers: [stdioFixture({ args: ["--log", log] })],
    model: steppedModel([
      callTool("mcp__fixture__crash", {}),
      callTool("mcp__fixture__echo", { text: "allowed" }),
      reply("done"),
    ]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(t.permissionRequests.length, 0);
    const finals = toolUpdates(t).filter((u) =>
      u.sessionUpdate === "tool_call_update" && (u.status === "failed" || u.status === "completed")
    ).map((u) => u.sessionUpdate === "tool_call_update" ? u.status : "");
    assertEquals(finals, ["failed", "completed"]);
    assertEquals(await callLog(log), [{ tool: "echo", arguments: { text: "allowed" } }]);
  });
  await Deno.remove(log);
});

Deno.test("a server that fails to start is shown to the user; the session and its other tools work", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    mcpServers: [
      stdioFixture({ name: "broken", args: ["--exit-at-start"] }),
      // `"type": "stdio"` is optional in ACP; clients send it either way.
      { ...stdioFixture(), type: "stdio" } as unknown as ReturnType<typeof stdioFixture>,
    ],
    model: recorded(requests, [
      callTool("mcp__broken__echo", { text: "x" }),
      callTool("mcp__fixture__echo", { text: "y" }),
      reply("done"),
    ]),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(response.stopReason, "end_turn");
    const shown = notices(t);
    assertEquals(shown.length, 1);
    assertStringIncludes(shown[0]!, `MCP server "broken" failed to start`);
    assertStringIncludes(shown[0]!, "fixture: told to exit at start");
    assert(requests[0]!.tools.every((tool) => !tool.name.startsWith("mcp__broken__")));
    assertStringIncludes(seen(requests[1]!), `tool mcp__broken__echo: MCP server "broken" failed`);
    assertStringIncludes(seen(requests[2]!), "tool mcp__fixture__echo: echo: y");
  });
});

Deno.test("a server that crashes mid-session: the call fails, the user is told, the next prompt runs", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    ...ALLOW_MCP,
    mcpServers: [stdioFixture()],
    model: recorded(requests, [
      callTool("mcp__fixture__crash", {}),
      reply("it crashed"),
      reply("still here"),
    ]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("crash it") });
    assertEquals(finalUpdate(t).status, "failed");
    assertStringIncludes(seen(requests[1]!), `MCP server "fixture" stopped during the session`);
    assertStringIncludes(notices(t).join("\n"), "exit code 7");
    const next = await t.agent.request("session/prompt", { sessionId, prompt: text("again") });
    assertEquals(next.stopReason, "end_turn");
    assert(requests[2]!.tools.every((tool) => !tool.name.startsWith("mcp__")), "no dead tools");
  });
});

Deno.test("a tool added mid-turn (tools/list_changed) is offered at the next generation", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    ...ALLOW_MCP,
    mcpServers: [stdioFixture()],
    model: recorded(requests, [
      callTool("mcp__fixture__grow", {}),
      callTool("mcp__fixture__late", {}),
      reply("done"),
    ]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("grow") });
    assertStringIncludes(seen(requests[2]!), "tool mcp__fixture__late: late tool ran");
    assert(requests[2]!.tools.some((tool) => tool.name === "mcp__fixture__late"));
  });
});

Deno.test("cancelling during a slow MCP call ends the turn at once as cancelled", async () => {
  await withInMemoryAgent({
    ...ALLOW_MCP,
    mcpServers: [stdioFixture()],
    model: steppedModel([callTool("mcp__fixture__slow", { ms: 60_000 }), reply("never")]),
  }, async (t) => {
    const sessionId = await t.newSession();
    const prompt = t.agent.request("session/prompt", { sessionId, prompt: text("wait") });
    while (
      !toolUpdates(t).some((u) =>
        u.sessionUpdate === "tool_call_update" && u.status === "in_progress"
      )
    ) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const started = performance.now();
    await t.agent.notify("session/cancel", { sessionId });
    assertEquals((await prompt).stopReason, "cancelled");
    assert(performance.now() - started < 2_000, "answered promptly");
    assertEquals(finalUpdate(t).status, "failed");
  });
});

Deno.test("closing the session ends its MCP servers, children included", async () => {
  const marker = `mcp-close-${crypto.randomUUID()}`;
  await withInMemoryAgent({
    mcpServers: [stdioFixture({ args: ["--child", "--marker", marker] })],
    model: steppedModel([reply("hi")]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
    assert((await livingPidsMatching(marker)).length >= 2, "the server and its child run");
    await t.agent.request("session/close", { sessionId });
    assertEquals(await livingPidsMatching(marker), []);
  });
});

Deno.test("a loaded session replays its MCP calls and connects the servers it is given", async () => {
  await withInMemoryAgent({
    ...ALLOW_MCP,
    mcpServers: [stdioFixture()],
    model: steppedModel([callTool("mcp__fixture__echo", { text: "hi" }), reply("done")]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    const live = toolUpdates(t);
    await t.agent.request("session/close", { sessionId });
    t.updates.length = 0;
    await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [stdioFixture()] });
    assertEquals(toolUpdates(t), live);
  });
});

Deno.test("initialize advertises MCP over HTTP", async () => {
  await withInMemoryAgent({}, async (t) => {
    const response = await t.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    assertEquals(response.agentCapabilities?.mcpCapabilities, { http: true, sse: false });
  });
});

Deno.test("two loads of one session at once build it once: one set of servers, none left after close", async () => {
  const marker = `mcp-load-${crypto.randomUUID()}`;
  await withInMemoryAgent({
    mcpServers: [stdioFixture({ args: ["--child", "--marker", marker] })],
    model: steppedModel([reply("hi"), reply("again")]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/close", { sessionId });
    const servers = [stdioFixture({ args: ["--child", "--marker", marker] })];
    const load = () =>
      t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: servers });
    await Promise.all([load(), load()]);
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
    assertEquals(response.stopReason, "end_turn");
    assertEquals((await livingPidsMatching(marker)).length, 2, "one server and its child");
    await t.agent.request("session/close", { sessionId });
    assertEquals(await livingPidsMatching(marker), []);
  });
});
