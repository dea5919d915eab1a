import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { AcpHarness } from "../helpers/acp_harness.ts";
import { runCli } from "../helpers/run_cli.ts";

async function inTemp<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "llama-agent-acp-cli-" }));
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("acp --help names every flag and the default model", async () => {
  await inTemp(async (dir) => {
    const help = await runCli(["acp", "--help"], { cwd: dir, home: dir });
    assertEquals(help.code, 0, help.stderr);
    for (
      const flag of [
        "--model",
        "--ctx-size",
        "--threads",
        "--gpu",
        "--permission-policy",
        "--rules",
        "--max-tool-rounds",
        "--compact-threshold",
        "--tool-output-share",
        "--mcp-start-timeout",
        "--mcp-call-timeout",
      ]
    ) {
      assertStringIncludes(help.stdout, flag);
    }
    assertStringIncludes(help.stdout, "hf:Qwen/");
  });
});

Deno.test("acp rejects bad flags before speaking the protocol: exit 2, nothing on stdout", async () => {
  await inTemp(async (dir) => {
    await Deno.writeTextFile(
      `${dir}/rules.json`,
      '{"rules":[{"tool":"shell","decision":"maybe"}]}',
    );
    const cases: [string[], string][] = [
      [["--threads", "0"], "--threads must be a positive integer"],
      [["--ctx-size", "big"], "--ctx-size must be a positive integer"],
      [["--mcp-start-timeout", "-1"], "--mcp-start-timeout must be a positive integer"],
      [["--mcp-call-timeout", "1.5"], "--mcp-call-timeout must be a positive integer"],
      [["--mcp-call-timeout", "3000000"], "--mcp-call-timeout must be at most 2147483 seconds"],
      [["--gpu", "cuda"], 'does not accept "cuda"'],
      [["--permission-policy", "yolo"], 'does not accept "yolo"'],
      [["--model", "hf:not a repo"], "Invalid model"],
      [["--rules", "missing.json"], "Cannot load permission rules"],
      [
        ["--rules", "rules.json"],
        '"decision" must be one of "allow", "ask", "deny" at /rules/0/decision',
      ],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(["acp", ...args], { cwd: dir, home: dir, stdin: "" });
      assertEquals(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
      assertEquals(result.stdout, "");
      assertStringIncludes(result.stderr, message);
    }
  });
});

Deno.test("the agent exits 0 soon after the client closes stdin", async () => {
  await inTemp(async (dir) => {
    await Deno.writeTextFile(`${dir}/script.json`, '{"turns":[]}');
    const agent = await AcpHarness.start({
      cwd: dir,
      home: dir,
      args: ["--model", "scripted:script.json"],
    });
    await agent.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const started = performance.now();
    const { code } = await agent.close({ timeoutMs: 5000 });
    assertEquals(code, 0);
    assert(performance.now() - started < 5000);
  });
});
