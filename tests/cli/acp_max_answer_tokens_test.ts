/**
 * `acp --max-answer-tokens`, its variable and its config key, through the real launcher: what
 * `--print-config` says of it, what a bad value does, and that a request to an endpoint asks for
 * the set cap as its `max_tokens`.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { AcpHarness, type JsonObject } from "../helpers/acp_harness.ts";
import { textReply } from "../helpers/openai_dialects.ts";
import { startFakeServer } from "../helpers/openai_fake_server.ts";
import { runCli, withTempProject } from "../helpers/run_cli.ts";

const CONFIG = ".config/llama-agent/config.json";

function lineOf(stdout: string, name: string): { value: string; source: string } {
  const line = stdout.split("\n").find((l) => l.startsWith(`${name} `));
  assert(line !== undefined, `no line for ${name} in:\n${stdout}`);
  const [value, source] = line.slice(name.length).trim().split(/\s{2,}/);
  return { value: value!, source: source! };
}

Deno.test("--print-config shows the answer cap from the flag, the variable, the file, or its default's words", async () => {
  await withTempProject({
    "work/.keep": "",
    [`home/${CONFIG}`]: '{\n  "maxAnswerTokens": 700\n}\n',
  }, async (root) => {
    const [home, work] = [`${root}/home`, `${root}/work`];
    const print = (args: string[], env: Record<string, string> = {}) =>
      runCli(["acp", "--print-config", ...args], { cwd: work, home, env });
    const fromFile = await print([]);
    assertEquals(fromFile.code, 0, fromFile.stderr);
    assertEquals(lineOf(fromFile.stdout, "max-answer-tokens"), {
      value: "700",
      source: `file ${home}/${CONFIG}:2`,
    });
    const fromEnv = await print([], { LLAMA_AGENT_MAX_ANSWER_TOKENS: "900" });
    assertEquals(lineOf(fromEnv.stdout, "max-answer-tokens"), {
      value: "900",
      source: "env LLAMA_AGENT_MAX_ANSWER_TOKENS",
    });
    const fromFlag = await print(["--max-answer-tokens", "1000"], {
      LLAMA_AGENT_MAX_ANSWER_TOKENS: "900",
    });
    assertEquals(lineOf(fromFlag.stdout, "max-answer-tokens"), { value: "1000", source: "flag" });
  });
  await withTempProject({ "work/.keep": "", "home/.keep": "" }, async (root) => {
    const result = await runCli(["acp", "--print-config"], {
      cwd: `${root}/work`,
      home: `${root}/home`,
    });
    assertEquals(lineOf(result.stdout, "max-answer-tokens"), {
      value: "a quarter of the context, at least 512",
      source: "default",
    });
  });
});

Deno.test("an answer cap that is no positive integer stops acp with exit 2 before it speaks", async () => {
  await withTempProject({ "work/.keep": "", "home/.keep": "" }, async (root) => {
    const [home, work] = [`${root}/home`, `${root}/work`];
    for (const bad of ["0", "-5", "1.5", "lots"]) {
      const flagged = await runCli(["acp", "--max-answer-tokens", bad], { cwd: work, home });
      assertEquals(flagged.code, 2, flagged.stderr);
      assertEquals(flagged.stdout, "");
      assertStringIncludes(
        flagged.stderr,
        `--max-answer-tokens must be a positive integer, got ${JSON.stringify(bad)}`,
      );
    }
  });
});

Deno.test("the variable and the config key set each request's max_tokens on an endpoint", async () => {
  for (
    const [setup, expected] of [
      [{ env: { LLAMA_AGENT_MAX_ANSWER_TOKENS: "640" } }, 640],
      [{ config: '{ "maxAnswerTokens": 1500 }' }, 1500],
      [{}, 2048],
    ] as const
  ) {
    const server = startFakeServer({ models: [{ id: "served-model", max_model_len: 8192 }] });
    try {
      await withTempProject({
        "work/.keep": "",
        [`home/${CONFIG}`]: "config" in setup ? setup.config : "{}",
      }, async (root) => {
        server.reply({ kind: "stream", chunks: textReply("Hello.") });
        const agent = await AcpHarness.start({
          cwd: `${root}/work`,
          home: `${root}/home`,
          args: ["--endpoint", server.baseUrl, "--model", "served-model"],
          env: "env" in setup ? setup.env : undefined,
        });
        await agent.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
        const { sessionId } = await agent.call("session/new", {
          cwd: `${root}/work`,
          mcpServers: [],
        }) as { sessionId: string };
        const result = await agent.call("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "hi" }],
        }) as JsonObject;
        assertEquals(result.stopReason, "end_turn");
        assertEquals((await agent.close()).code, 0);
      });
      assertEquals(server.requests[0]!.max_tokens, expected, JSON.stringify(setup));
    } finally {
      await server.close();
    }
  }
});
