/**
 * `acp --print-config` and the user's config file, through the real launcher: what it prints,
 * that a bad file stops `acp` before it speaks, and that nothing in a project is a config file.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { AcpHarness } from "../helpers/acp_harness.ts";
import { runCli, withTempProject } from "../helpers/run_cli.ts";
import {
  DEFAULT_COMPACT_THRESHOLD,
  DEFAULT_TOOL_OUTPUT_SHARE,
} from "../../src/acp/compaction/context_budget.ts";

const CONFIG = ".config/llama-agent/config.json";

/** A launch directory `work` and a home `home`, with files under either. */
function withHomeAndWork<T>(
  files: Readonly<Record<string, string>>,
  fn: (dirs: { root: string; home: string; work: string }) => Promise<T>,
): Promise<T> {
  return withTempProject(
    { "home/.keep": "", "work/.keep": "", ...files },
    (root) => fn({ root, home: `${root}/home`, work: `${root}/work` }),
  );
}

/** The printed line of one setting, split into its value and its source. */
function lineOf(stdout: string, name: string): { value: string; source: string } {
  const line = stdout.split("\n").find((l) => l.startsWith(`${name} `));
  assert(line !== undefined, `no line for ${name} in:\n${stdout}`);
  const [value, source] = line.slice(name.length).trim().split(/\s{2,}/);
  return { value: value!, source: source! };
}

Deno.test("--print-config says which value each setting has and whether a flag, variable, the file or the default gave it", async () => {
  await withHomeAndWork({
    [`home/${CONFIG}`]: '{\n  "ctxSize": 1024,\n  "threads": 2,\n  "maxToolRounds": 7\n}\n',
  }, async ({ home, work }) => {
    const result = await runCli(["acp", "--print-config", "--ctx-size", "4096"], {
      cwd: work,
      home,
      env: { LLAMA_AGENT_CTX_SIZE: "2048", LLAMA_AGENT_THREADS: "3" },
    });
    assertEquals(result.code, 0, result.stderr);
    assertEquals(result.stderr, "");
    const [first] = result.stdout.split("\n");
    assertEquals(first, `Config file: ${home}/${CONFIG} (found)`);
    assertEquals(lineOf(result.stdout, "ctx-size"), { value: "4096", source: "flag" });
    assertEquals(lineOf(result.stdout, "threads"), {
      value: "3",
      source: "env LLAMA_AGENT_THREADS",
    });
    assertEquals(lineOf(result.stdout, "max-tool-rounds"), {
      value: "7",
      source: `file ${home}/${CONFIG}:4`,
    });
    assertEquals(lineOf(result.stdout, "gpu"), { value: "auto", source: "default" });
    assertEquals(lineOf(result.stdout, "max-line-bytes").source, "default");
    assert(!result.stdout.includes("print-config"), "--print-config is no setting");
  });
});

Deno.test("--print-config shows the compaction threshold and the tool-output share from a flag, a variable, the file or the default", async () => {
  await withHomeAndWork({
    [`home/${CONFIG}`]: '{\n  "compactThreshold": 0.7,\n  "toolOutputShare": "25%"\n}\n',
  }, async ({ home, work }) => {
    const fromFile = await runCli(["acp", "--print-config"], { cwd: work, home });
    assertEquals(fromFile.code, 0, fromFile.stderr);
    assertEquals(lineOf(fromFile.stdout, "compact-threshold"), {
      value: "0.7",
      source: `file ${home}/${CONFIG}:2`,
    });
    assertEquals(lineOf(fromFile.stdout, "tool-output-share"), {
      value: "25%",
      source: `file ${home}/${CONFIG}:3`,
    });

    const fromEnv = await runCli(["acp", "--print-config"], {
      cwd: work,
      home,
      env: { LLAMA_AGENT_COMPACT_THRESHOLD: "90%", LLAMA_AGENT_TOOL_OUTPUT_SHARE: "0.3" },
    });
    assertEquals(fromEnv.code, 0, fromEnv.stderr);
    assertEquals(lineOf(fromEnv.stdout, "compact-threshold"), {
      value: "90%",
      source: "env LLAMA_AGENT_COMPACT_THRESHOLD",
    });
    assertEquals(lineOf(fromEnv.stdout, "tool-output-share"), {
      value: "0.3",
      source: "env LLAMA_AGENT_TOOL_OUTPUT_SHARE",
    });

    const fromFlags = await runCli(
      ["acp", "--print-config", "--compact-threshold", "0.6", "--tool-output-share", "100%"],
      { cwd: work, home, env: { LLAMA_AGENT_COMPACT_THRESHOLD: "90%" } },
    );
    assertEquals(fromFlags.code, 0, fromFlags.stderr);
    assertEquals(lineOf(fromFlags.stdout, "compact-threshold"), { value: "0.6", source: "flag" });
    assertEquals(lineOf(fromFlags.stdout, "tool-output-share"), { value: "100%", source: "flag" });
  });
  await withHomeAndWork({}, async ({ home, work }) => {
    const defaults = await runCli(["acp", "--print-config"], { cwd: work, home });
    assertEquals(defaults.code, 0, defaults.stderr);
    assertEquals(lineOf(defaults.stdout, "compact-threshold"), {
      value: String(DEFAULT_COMPACT_THRESHOLD),
      source: "default",
    });
    assertEquals(lineOf(defaults.stdout, "tool-output-share"), {
      value: String(DEFAULT_TOOL_OUTPUT_SHARE),
      source: "default",
    });
  });
});

Deno.test("a share that is no share stops acp with exit 2 before it speaks, naming the flag, the variable or the file's line", async () => {
  const expected = 'must be a share above 0 and at most 1, such as 0.8 or "80%", got';
  await withHomeAndWork({}, async ({ home, work }) => {
    const stdin = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n';
    for (const bad of ["0", "1.5", "-0.1", "abc", "80", ""]) {
      const hint = bad === "80" ? ': did you mean "80%"?' : "";
      const flagged = await runCli(["acp", "--tool-output-share", bad], { cwd: work, home, stdin });
      assertEquals(flagged.code, 2, flagged.stderr);
      assertEquals(flagged.stdout, "");
      assertStringIncludes(
        flagged.stderr,
        `--tool-output-share ${expected} ${JSON.stringify(bad)}${hint}`,
      );
      if (bad === "") continue; // an empty variable is unset
      const env = { LLAMA_AGENT_COMPACT_THRESHOLD: bad };
      const fromEnv = await runCli(["acp"], { cwd: work, home, env, stdin });
      assertEquals(fromEnv.code, 2, fromEnv.stderr);
      assertEquals(fromEnv.stdout, "");
      assertStringIncludes(
        fromEnv.stderr,
        `LLAMA_AGENT_COMPACT_THRESHOLD ${expected} ${JSON.stringify(bad)}${hint}`,
      );
    }
  });
  await withHomeAndWork({
    [`home/${CONFIG}`]: '{\n  "compactThreshold": 80,\n  "toolOutputShare": ""\n}',
  }, async ({ home, work }) => {
    const result = await runCli(["acp", "--print-config"], { cwd: work, home });
    assertEquals(result.code, 2, result.stderr);
    assertEquals(result.stdout, "");
    assertStringIncludes(
      result.stderr,
      `${home}/${CONFIG}:2: "compactThreshold" ${expected} 80: did you mean "80%"?`,
    );
    assertStringIncludes(result.stderr, `${home}/${CONFIG}:3: "toolOutputShare" ${expected} ""`);
  });
});

Deno.test("--print-config under XDG_CONFIG_HOME without a file says it was not found", async () => {
  await withHomeAndWork({}, async ({ home, work }) => {
    const result = await runCli(["acp", "--print-config"], {
      cwd: work,
      home,
      env: { XDG_CONFIG_HOME: `${home}/xdg` },
    });
    assertEquals(result.code, 0, result.stderr);
    assert(
      result.stdout.startsWith(`Config file: ${home}/xdg/llama-agent/config.json (not found)\n`),
      result.stdout,
    );
  });
});

Deno.test("--print-config shows the API key's variable and whether it is set, never the key", async () => {
  const key = "sk-test-0123456789abcdef";
  await withHomeAndWork({
    [`home/${CONFIG}`]: '{ "apiKeyEnv": "MY_MODELS_KEY" }',
  }, async ({ home, work }) => {
    const set = await runCli(["acp", "--print-config"], {
      cwd: work,
      home,
      env: { MY_MODELS_KEY: key },
    });
    assertEquals(set.code, 0, set.stderr);
    assertEquals(lineOf(set.stdout, "api-key-env").value, "MY_MODELS_KEY (set)");
    assert(!set.stdout.includes(key) && !set.stderr.includes(key), set.stdout);

    const unset = await runCli(["acp", "--print-config"], { cwd: work, home });
    assertEquals(lineOf(unset.stdout, "api-key-env").value, "MY_MODELS_KEY (not set)");

    // A key pasted where its variable's name goes is not printed either.
    const pasted = await runCli(["acp", "--print-config", "--api-key-env", key], {
      cwd: work,
      home,
    });
    assertEquals(pasted.code, 0, pasted.stderr);
    assert(!pasted.stdout.includes(key), pasted.stdout);
  });
});

Deno.test("--print-config starts nothing: a model that does not exist is not looked at", async () => {
  await withHomeAndWork({}, async ({ home, work }) => {
    const result = await runCli(["acp", "--print-config", "--model", "missing.gguf"], {
      cwd: work,
      home,
      stdin: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n',
    });
    assertEquals(result.code, 0, result.stderr);
    assertEquals(lineOf(result.stdout, "model"), { value: "missing.gguf", source: "flag" });
    assert(!result.stdout.includes("jsonrpc"), result.stdout);
  });
});

Deno.test("a bad config file stops acp with exit 2 before it speaks, naming the file, line and key", async () => {
  await withHomeAndWork({
    [`home/${CONFIG}`]: '{\n  "model": "scripted:s.json",\n  "ctxSize": -3,\n  "ctxsize": 1\n}',
  }, async ({ home, work }) => {
    const result = await runCli(["acp"], {
      cwd: work,
      home,
      stdin: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n',
    });
    assertEquals(result.code, 2, result.stderr);
    assertEquals(result.stdout, "");
    assertStringIncludes(
      result.stderr,
      `${home}/${CONFIG}:3: "ctxSize" must be a positive integer, got -3`,
    );
    assertStringIncludes(
      result.stderr,
      `${home}/${CONFIG}:4: "ctxsize" is not a setting; did you mean "ctxSize"?`,
    );
  });
});

Deno.test("a bad LLAMA_AGENT_* value stops acp with exit 2, naming the variable", async () => {
  await withHomeAndWork({}, async ({ home, work }) => {
    for (
      const [env, message] of [
        [
          { LLAMA_AGENT_MAX_LINE_BYTES: "lots" },
          'LLAMA_AGENT_MAX_LINE_BYTES must be a positive integer, got "lots"',
        ],
        [
          { LLAMA_AGENT_COMPAT: "Claude" },
          'LLAMA_AGENT_COMPAT must be one of "auto", "llama", "claude", not "Claude"',
        ],
      ] as const
    ) {
      const result = await runCli(["acp"], { cwd: work, home, env, stdin: "" });
      assertEquals(result.code, 2, result.stderr);
      assertEquals(result.stdout, "");
      assertStringIncludes(result.stderr, message);
    }
  });
});

Deno.test("LLAMA_AGENT_COMPAT still chooses the profile, and --compat still wins over it", async () => {
  await withHomeAndWork({ [`home/${CONFIG}`]: '{ "compat": "llama" }' }, async ({ home, work }) => {
    const env = { LLAMA_AGENT_COMPAT: "claude" };
    const fromEnv = await runCli(["acp", "--print-config"], { cwd: work, home, env });
    assertEquals(lineOf(fromEnv.stdout, "compat"), {
      value: "claude",
      source: "env LLAMA_AGENT_COMPAT",
    });
    const fromFlag = await runCli(["acp", "--print-config", "--compat", "llama"], {
      cwd: work,
      home,
      env,
    });
    assertEquals(lineOf(fromFlag.stdout, "compat"), { value: "llama", source: "flag" });
  });
});

Deno.test("a model path in the config file is relative to the file, and the agent uses it", async () => {
  const script = JSON.stringify({ turns: [{ text: "scripted from the config dir" }] });
  await withHomeAndWork({
    [`home/${CONFIG}`]: '{ "model": "scripted:turns.json" }',
    "home/.config/llama-agent/turns.json": script,
  }, async ({ home, work }) => {
    const printed = await runCli(["acp", "--print-config"], { cwd: work, home });
    assertEquals(
      lineOf(printed.stdout, "model").value,
      `scripted:${home}/.config/llama-agent/turns.json`,
    );

    const agent = await AcpHarness.start({ cwd: work, home });
    await agent.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await agent.call("session/new", { cwd: work, mcpServers: [] }) as {
      sessionId: string;
    };
    await agent.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    assertEquals(agent.agentText(sessionId), "scripted from the config dir");
    assertEquals((await agent.close()).code, 0);
  });
});

Deno.test("a project's files never configure acp: its endpoint, policy and bypass mode are not read", async () => {
  await withHomeAndWork({
    "work/.llama-agent/config.json": JSON.stringify({
      endpoint: "http://127.0.0.1:9/v1",
      permissionPolicy: "rule-based",
    }),
    "work/.config/llama-agent/config.json": JSON.stringify({ permissionPolicy: "rule-based" }),
    "work/.claude/settings.json": JSON.stringify({
      permissions: { defaultMode: "bypassPermissions" },
    }),
  }, async ({ home, work }) => {
    const result = await runCli(["acp", "--print-config"], { cwd: work, home });
    assertEquals(result.code, 0, result.stderr);
    assert(result.stdout.startsWith(`Config file: ${home}/${CONFIG} (not found)\n`), result.stdout);
    assertEquals(lineOf(result.stdout, "permission-policy").source, "default");
    assertStringIncludes(lineOf(result.stdout, "permission-policy").value, "auto-approve-reads");
    assertEquals(lineOf(result.stdout, "endpoint"), { value: "-", source: "default" });
  });
});

Deno.test("acp --help tells of the config file, the variables and --print-config", async () => {
  await withHomeAndWork({}, async ({ home, work }) => {
    const help = await runCli(["acp", "--help"], { cwd: work, home });
    assertEquals(help.code, 0, help.stderr);
    assertStringIncludes(help.stdout, "~/.config/llama-agent/config.json");
    assertStringIncludes(help.stdout, "LLAMA_AGENT_CTX_SIZE");
    assertStringIncludes(help.stdout, "--print-config");
    assertStringIncludes(help.stdout, "llama-agent acp --print-config");
  });
});

Deno.test("a config file under an XDG_CONFIG_HOME outside the home directory is read: the launcher lets it", async () => {
  await withHomeAndWork({
    "xdg/llama-agent/config.json": '{ "ctxSize": 3072 }',
  }, async ({ root, home, work }) => {
    const result = await runCli(["acp", "--print-config"], {
      cwd: work,
      home,
      env: { XDG_CONFIG_HOME: `${root}/xdg` },
    });
    assertEquals(result.code, 0, result.stderr);
    assertEquals(lineOf(result.stdout, "ctx-size").value, "3072");
  });
});

Deno.test("--print-config hides a password in the endpoint URL, from a flag, a variable or the file, and says acp refuses it", async () => {
  const secrets = ["sk-flag-secret", "sk-env-secret", "sk-query-secret", "sk-file-secret"];
  await withHomeAndWork({
    [`home/${CONFIG}`]: '{ "endpoint": "https://me:sk-file-secret@models.example/v1" }',
  }, async ({ home, work }) => {
    const fromFlag = await runCli(
      ["acp", "--print-config", "--endpoint", "https://me:sk-flag-secret@models.example/v1"],
      { cwd: work, home },
    );
    const fromEnv = await runCli(["acp", "--print-config"], {
      cwd: work,
      home,
      env: { LLAMA_AGENT_ENDPOINT: "https://sk-env-secret@models.example/v1?key=sk-query-secret" },
    });
    const fromFile = await runCli(["acp", "--print-config"], { cwd: work, home });
    const refused = "(refused by acp: --endpoint must not carry a user or password";
    for (
      const [run, value, source] of [
        [fromFlag, `https://***@models.example/v1 ${refused}`, "flag"],
        [
          fromEnv,
          "https://***@models.example/v1?*** (refused by acp: --endpoint must be the " +
          "server's base URL, without a ?query or #fragment",
          "env LLAMA_AGENT_ENDPOINT",
        ],
        [fromFile, `https://***@models.example/v1 ${refused}`, `file ${home}/${CONFIG}:1`],
      ] as const
    ) {
      assertEquals(run.code, 0, run.stderr);
      const line = lineOf(run.stdout, "endpoint");
      assert(line.value.startsWith(value), line.value);
      assertEquals(line.source, source);
      for (const secret of secrets) {
        assert(!run.stdout.includes(secret) && !run.stderr.includes(secret), run.stdout);
      }
    }
  });
});

Deno.test("--print-config shows an endpoint acp takes as it is", async () => {
  await withHomeAndWork({}, async ({ home, work }) => {
    const result = await runCli(
      ["acp", "--print-config", "--endpoint", "http://localhost:11434/v1"],
      { cwd: work, home },
    );
    assertEquals(lineOf(result.stdout, "endpoint"), {
      value: "http://localhost:11434/v1",
      source: "flag",
    });
  });
});

const BASH_GUARD = JSON.stringify({
  hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] },
});

Deno.test("--print-config shows the profile a session in the launch directory gets, and where the choice came from", async () => {
  await withHomeAndWork({ "work/.claude/settings.json": BASH_GUARD }, async ({ home, work }) => {
    const profileLine = (stdout: string) => stdout.split("\n").at(-2);
    const auto = await runCli(["acp", "--print-config"], { cwd: work, home });
    assertEquals(auto.code, 0, auto.stderr);
    assertEquals(lineOf(auto.stdout, "compat"), { value: "auto", source: "default" });
    assertEquals(
      profileLine(auto.stdout),
      `Profile of a session in "${work}": claude (auto: the hooks name Claude Code's tools in ` +
        'matcher "Bash")',
    );

    const fromEnv = await runCli(["acp", "--print-config"], {
      cwd: work,
      home,
      env: { LLAMA_AGENT_COMPAT: "llama" },
    });
    assertEquals(lineOf(fromEnv.stdout, "compat"), {
      value: "llama",
      source: "env LLAMA_AGENT_COMPAT",
    });
    assertEquals(
      profileLine(fromEnv.stdout),
      `Profile of a session in "${work}": llama (set by LLAMA_AGENT_COMPAT)`,
    );

    await Deno.mkdir(`${home}/.config/llama-agent`, { recursive: true });
    await Deno.writeTextFile(`${home}/${CONFIG}`, '{\n  "compat": "llama"\n}\n');
    const fromFile = await runCli(["acp", "--print-config"], { cwd: work, home });
    assertEquals(
      profileLine(fromFile.stdout),
      `Profile of a session in "${work}": llama (set by ${home}/${CONFIG}:2: "compat")`,
    );
    // A flag wins over the file: `auto` asks the hooks again.
    const flag = await runCli(["acp", "--print-config", "--compat", "auto"], { cwd: work, home });
    assertEquals(lineOf(flag.stdout, "compat"), { value: "auto", source: "flag" });
    assertStringIncludes(profileLine(flag.stdout) ?? "", ": claude (auto: ");
  });
});
