/**
 * Handler-level `if` in a real session (claude-compat.md §7), default profile `llama`: a rule
 * names the tool the model is offered (`shell`), is tested against each call's input, and never
 * holds on an event that has no tool call.
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { assertEquals } from "../helpers/assert.ts";
import { withInMemoryAgent } from "./in_memory_agent.ts";
import { callTool, reply, steppedModel } from "./fake_models.ts";
import { logging, readLog } from "./hook_fixtures.ts";

const text = (t: string): ContentBlock[] => [{ type: "text", text: t }];

const command = (line: string, ifRule?: string) => ({
  type: "command",
  command: line,
  ...(ifRule === undefined ? {} : { if: ifRule }),
});

const SETTINGS = JSON.stringify({
  hooks: {
    PreToolUse: [{
      hooks: [
        // The guard denies what it sees, so `git commit` never runs in the temp project.
        command(
          `${logging("commit.log")}; echo 'no commits here' >&2; exit 2`,
          "shell(git commit:*)",
        ),
        command(logging("every-call.log")),
      ],
    }],
    SessionStart: [{
      hooks: [command(logging("start-if.log"), "shell(echo *)"), command(logging("start.log"))],
    }],
  },
});

const commandsIn = (log: Record<string, unknown>[]) =>
  log.map(({ tool_input: input }) =>
    typeof input === "object" && input !== null ? Reflect.get(input, "command") : undefined
  );

Deno.test('a hook with "if": "shell(git commit:*)" runs for "git commit -m x" and not for "echo hi"', async () => {
  await withInMemoryAgent({
    files: { ".claude/settings.json": SETTINGS },
    model: steppedModel([
      callTool("shell", { command: "git commit -m x" }),
      callTool("shell", { command: "echo hi" }),
      reply("done"),
    ]),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(response.stopReason, "end_turn");
    assertEquals(commandsIn(await readLog(`${t.cwd}/commit.log`)), ["git commit -m x"]);
    assertEquals(commandsIn(await readLog(`${t.cwd}/every-call.log`)), [
      "git commit -m x",
      "echo hi",
    ]);
  });
});

Deno.test('a SessionStart hook with an "if" never runs, while its sibling without one does', async () => {
  await withInMemoryAgent({ files: { ".claude/settings.json": SETTINGS } }, async (t) => {
    await t.newSession();
    assertEquals((await readLog(`${t.cwd}/start.log`)).map((e) => e.hook_event_name), [
      "SessionStart",
    ]);
    assertEquals(await readLog(`${t.cwd}/start-if.log`), []);
  });
});
