/**
 * The endpoint's key (`--api-key-env VAR`) is the agent's alone: the real agent over real stdio,
 * on a loopback fake server, sends it to the server, while the processes it starts for others —
 * a project's SessionStart hook, the model's shell command — get the rest of the environment
 * without that variable, and a `$VAR` written to `CLAUDE_ENV_FILE` does not bring it back.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { AcpHarness, type JsonObject } from "../helpers/acp_harness.ts";
import { textReply } from "../helpers/openai_dialects.ts";
import { startFakeServer } from "../helpers/openai_fake_server.ts";
import { textPrompt, withE2eProject } from "./e2e_project.ts";

const KEY = "sk-test-0123456789";

/** A streamed call of the shell tool (`Bash`, the claude profile's name) running `command`. */
function shellCall(command: string): object[] {
  const base = { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1764547200 };
  const call = {
    index: 0,
    id: "call-1",
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
    SessionStart: [{
      hooks: [{
        type: "command",
        command: 'env > "$CLAUDE_PROJECT_DIR/hook_env.txt"; ' +
          'echo "export LEAKED=\\"[$MODELS_KEY]\\"" >> "$CLAUDE_ENV_FILE"',
      }],
    }],
  },
});

Deno.test("--api-key-env: the server gets the key; hooks and shell commands get the environment without its variable", async () => {
  const server = startFakeServer({ models: [{ id: "served-model" }] });
  try {
    await withE2eProject({ "project/.claude/settings.json": SETTINGS }, async (p) => {
      server.reply(
        { kind: "stream", chunks: shellCall('env > "$PWD/shell_env.txt"') },
        { kind: "stream", chunks: textReply("Done.") },
      );
      const agent = await AcpHarness.start({
        cwd: p.cwd,
        home: p.home,
        args: [
          "--endpoint",
          server.baseUrl,
          "--model",
          "served-model",
          "--api-key-env",
          "MODELS_KEY",
          "--compat",
          "claude",
        ],
        env: { MODELS_KEY: KEY, OTHER_SETTING: "kept" },
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
          prompt: textPrompt("show the environment"),
        }) as JsonObject;
        assertEquals(result.stopReason, "end_turn");
        assertEquals(server.authorizations.at(-1), `Bearer ${KEY}`);
        for (const file of ["hook_env.txt", "shell_env.txt"]) {
          const env = await Deno.readTextFile(`${p.cwd}/${file}`);
          assert(env.includes("OTHER_SETTING=kept\n"), `${file} lacks the rest:\n${env}`);
          assert(!env.includes("MODELS_KEY="), `${file} has the key's variable`);
          assert(!env.includes(KEY), `${file} has the key`);
        }
        const shellEnv = await Deno.readTextFile(`${p.cwd}/shell_env.txt`);
        assert(shellEnv.includes("LEAKED=[]\n"), `the env file's $MODELS_KEY:\n${shellEnv}`);
        assertEquals((await agent.close()).code, 0);
      } finally {
        await agent.close({ allowViolations: true });
      }
    });
  } finally {
    await server.close();
  }
});
