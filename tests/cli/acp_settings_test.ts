import { assert, assertEquals } from "../helpers/assert.ts";
import type { FlagSpec } from "../../src/cli/command_spec.ts";
import { parseCommandLine, type ParsedCommandLine } from "../../src/cli/parse_command_line.ts";
import { settingSpecs } from "../../src/cli/options/setting_spec.ts";
import type { FileSetting, UserConfig } from "../../src/cli/options/user_config_file.ts";
import {
  type AcpSettings,
  loadAcpSettings,
  mergeSettings,
  type Setting,
} from "../../src/cli/options/acp_settings.ts";

const FLAGS: FlagSpec[] = [
  { name: "model", type: "string", description: "The model" },
  { name: "endpoint", type: "string", description: "A server" },
  { name: "ctx-size", type: "string", description: "Context size" },
  { name: "gpu", type: "string", choices: ["auto", "off"], description: "GPU" },
  { name: "compat", type: "string", choices: ["llama", "claude"], description: "Profile" },
  { name: "plugin-dir", type: "string", repeatable: true, description: "Plugins" },
  { name: "rules", type: "string", description: "Rules" },
  { name: "mcp-call-timeout", type: "string", description: "Seconds" },
  { name: "compact-threshold", type: "string", description: "A share" },
  { name: "verbose", type: "boolean", description: "Talk more" },
];
const SPECS = settingSpecs(FLAGS, {
  "ctx-size": null,
  "mcp-call-timeout": { max: 100, said: "100 seconds" },
}, ["compact-threshold"]);
const SPEC = { path: ["acp"], summary: "", flags: FLAGS, positionals: [] };
const FILE_PATH = "/home/u/.config/llama-agent/config.json";
const FILE_DIR = "/home/u/.config/llama-agent";

function flagsOf(args: readonly string[]): ParsedCommandLine {
  const parsed = parseCommandLine(SPEC, args);
  assert(parsed.ok, parsed.ok ? "" : parsed.error);
  return parsed.value;
}

function fileWith(values: Record<string, FileSetting>): UserConfig {
  return { path: FILE_PATH, exists: true, values: new Map(Object.entries(values)) };
}

function merged(
  args: readonly string[],
  env: Record<string, string>,
  file: Record<string, FileSetting> = {},
): AcpSettings {
  const result = mergeSettings(SPECS, flagsOf(args), (name) => env[name], fileWith(file));
  assert(result.ok, result.ok ? "" : result.message);
  return result.settings;
}

function problem(
  args: readonly string[],
  env: Record<string, string>,
  file: Record<string, FileSetting> = {},
): string {
  const result = mergeSettings(SPECS, flagsOf(args), (name) => env[name], fileWith(file));
  assert(!result.ok, "expected a problem");
  return result.message;
}

function settingOf(settings: AcpSettings, name: string): Omit<Setting, "spec"> {
  const found = settings.settings.find((setting) => setting.spec.flag.name === name);
  assert(found !== undefined, `no setting ${name}`);
  return { value: found.value, source: found.source };
}

Deno.test("a flag wins over its variable, which wins over the file, which wins over the default", () => {
  const file = { "ctx-size": { value: "1024", line: 3 } };
  const env = { LLAMA_AGENT_CTX_SIZE: "2048" };
  const all = merged(["--ctx-size", "4096"], env, file);
  assertEquals(settingOf(all, "ctx-size"), { value: "4096", source: { kind: "flag" } });
  assertEquals(all.numbers["ctx-size"], 4096);
  assertEquals(settingOf(merged([], env, file), "ctx-size"), {
    value: "2048",
    source: { kind: "env", variable: "LLAMA_AGENT_CTX_SIZE" },
  });
  assertEquals(settingOf(merged([], {}, file), "ctx-size"), {
    value: "1024",
    source: { kind: "file", path: FILE_PATH, line: 3 },
  });
  const none = merged([], {});
  assertEquals(settingOf(none, "ctx-size"), { value: undefined, source: { kind: "default" } });
  assertEquals(none.numbers["ctx-size"], undefined);
  assertEquals(none.flags["ctx-size"], undefined);
});

Deno.test("an empty variable is unset, and variables that name no flag are never read", () => {
  const read: string[] = [];
  const env = (name: string) => {
    read.push(name);
    return name === "LLAMA_AGENT_GPU" ? "" : undefined;
  };
  const result = mergeSettings(
    SPECS,
    flagsOf([]),
    env,
    fileWith({ gpu: { value: "off", line: 2 } }),
  );
  assert(result.ok);
  assertEquals(result.settings.flags["gpu"], "off");
  assertEquals(read.sort(), SPECS.map((spec) => spec.envName).sort());
});

Deno.test("a bad value names where it came from: the flag or the variable", () => {
  assertEquals(
    problem([], { LLAMA_AGENT_CTX_SIZE: "big" }),
    'LLAMA_AGENT_CTX_SIZE must be a positive integer, got "big"',
  );
  assertEquals(
    problem(["--ctx-size", "0"], {}),
    '--ctx-size must be a positive integer, got "0"',
  );
  assertEquals(
    problem([], { LLAMA_AGENT_MCP_CALL_TIMEOUT: "101" }),
    "LLAMA_AGENT_MCP_CALL_TIMEOUT must be at most 100 seconds, got 101",
  );
  assertEquals(
    problem([], { LLAMA_AGENT_GPU: "cuda" }),
    'LLAMA_AGENT_GPU must be one of "auto", "off", not "cuda"',
  );
  assertEquals(
    problem([], { LLAMA_AGENT_VERBOSE: "yes" }),
    'LLAMA_AGENT_VERBOSE must be "true" or "false" (or 1 or 0), got "yes"',
  );
});

Deno.test("a share comes from the flag, its variable or the file, as written, and means the same fraction either way", () => {
  const file = { "compact-threshold": { value: "0.6", line: 5 } };
  const env = { LLAMA_AGENT_COMPACT_THRESHOLD: "70%" };
  const fromFlag = merged(["--compact-threshold", "80%"], env, file);
  assertEquals(settingOf(fromFlag, "compact-threshold"), {
    value: "80%",
    source: { kind: "flag" },
  });
  assertEquals(fromFlag.numbers["compact-threshold"], 0.8);
  assertEquals(merged(["--compact-threshold", "0.8"], env, file).numbers["compact-threshold"], 0.8);
  const fromEnv = merged([], env, file);
  assertEquals(settingOf(fromEnv, "compact-threshold").source, {
    kind: "env",
    variable: "LLAMA_AGENT_COMPACT_THRESHOLD",
  });
  assertEquals(fromEnv.numbers["compact-threshold"], 0.7);
  const fromFile = merged([], {}, file);
  assertEquals(settingOf(fromFile, "compact-threshold").source, {
    kind: "file",
    path: FILE_PATH,
    line: 5,
  });
  assertEquals(fromFile.numbers["compact-threshold"], 0.6);
  assertEquals(merged([], {}).numbers["compact-threshold"], undefined);
  // An empty variable is unset, as for every setting: the file's value is used.
  assertEquals(
    merged([], { LLAMA_AGENT_COMPACT_THRESHOLD: "" }, file).numbers["compact-threshold"],
    0.6,
  );
});

Deno.test("a share that is no share is refused, naming the flag or the variable and what to write", () => {
  const expected = 'must be a share above 0 and at most 1, such as 0.8 or "80%", got';
  for (const bad of ["0", "1.5", "-0.1", "abc", ""]) {
    assertEquals(
      problem(["--compact-threshold", bad], {}),
      `--compact-threshold ${expected} ${JSON.stringify(bad)}`,
    );
    if (bad === "") continue;
    assertEquals(
      problem([], { LLAMA_AGENT_COMPACT_THRESHOLD: bad }),
      `LLAMA_AGENT_COMPACT_THRESHOLD ${expected} ${JSON.stringify(bad)}`,
    );
  }
  assertEquals(
    problem(["--compact-threshold", "80"], {}),
    `--compact-threshold ${expected} "80": did you mean "80%"?`,
  );
  assertEquals(
    problem([], { LLAMA_AGENT_COMPACT_THRESHOLD: "80" }),
    `LLAMA_AGENT_COMPACT_THRESHOLD ${expected} "80": did you mean "80%"?`,
  );
});

Deno.test("a variable a flag overrides is not read, as LLAMA_AGENT_COMPAT never was", () => {
  const settings = merged(["--compat", "llama"], { LLAMA_AGENT_COMPAT: "bogus" });
  assertEquals(settings.flags["compat"], "llama");
  assertEquals(settingOf(merged([], { LLAMA_AGENT_COMPAT: "claude" }), "compat"), {
    value: "claude",
    source: { kind: "env", variable: "LLAMA_AGENT_COMPAT" },
  });
  assertEquals(
    problem([], { LLAMA_AGENT_COMPAT: "Claude" }),
    'LLAMA_AGENT_COMPAT must be one of "llama", "claude", not "Claude": did you mean "claude"?',
  );
});

Deno.test("a list comes whole from one source: the flags, a :-separated variable, or the file", () => {
  const file = { "plugin-dir": { value: ["/f"], line: 2 } };
  const env = { LLAMA_AGENT_PLUGIN_DIR: "a::b" };
  const fromFlags = merged(["--plugin-dir", "x", "--plugin-dir", "y"], env, file);
  assertEquals(fromFlags.lists["plugin-dir"], ["x", "y"]);
  assertEquals(fromFlags.flags["plugin-dir"], "y");
  assertEquals(merged([], env, file).lists["plugin-dir"], ["a", "b"]);
  assertEquals(merged([], {}, file).lists["plugin-dir"], ["/f"]);
  assertEquals(merged([], {}).lists["plugin-dir"], undefined);
});

Deno.test("relative paths in the file are against the file's directory; a flag's stay as given", () => {
  const file = {
    model: { value: "scripted:turns.json", line: 2 },
    rules: { value: "../rules.json", line: 3 },
    "plugin-dir": { value: ["plugins/guard", "/abs/plugin"], line: 4 },
  };
  const settings = merged([], {}, file);
  assertEquals(settings.flags["model"], `scripted:${FILE_DIR}/turns.json`);
  assertEquals(settings.flags["rules"], "/home/u/.config/rules.json");
  assertEquals(settings.lists["plugin-dir"], [`${FILE_DIR}/plugins/guard`, "/abs/plugin"]);
  assertEquals(settingOf(settings, "rules").value, "/home/u/.config/rules.json");

  assertEquals(
    merged([], {}, { model: { value: "m.gguf", line: 2 } }).flags["model"],
    `${FILE_DIR}/m.gguf`,
  );
  const fromFlags = merged(
    ["--model", "m.gguf", "--rules", "r.json"],
    { LLAMA_AGENT_RULES: "e" },
    file,
  );
  assertEquals(fromFlags.flags["model"], "m.gguf");
  assertEquals(fromFlags.flags["rules"], "r.json");
  assertEquals(merged([], { LLAMA_AGENT_RULES: "e.json" }, file).flags["rules"], "e.json");
});

Deno.test("an hf: model and a model NAME for an endpoint are not paths", () => {
  const hf = merged([], {}, { model: { value: "hf:owner/repo:Q4_K_M", line: 2 } });
  assertEquals(hf.flags["model"], "hf:owner/repo:Q4_K_M");
  const named = { model: { value: "qwen3:8b", line: 2 } };
  const endpointInFile = {
    ...named,
    endpoint: { value: "http://127.0.0.1:1/v1", line: 3 },
  };
  assertEquals(merged([], {}, endpointInFile).flags["model"], "qwen3:8b");
});

Deno.test("a boolean setting comes from a flag, true or false words in a variable, or the file", () => {
  assertEquals(merged(["--verbose"], { LLAMA_AGENT_VERBOSE: "0" }).flags["verbose"], true);
  assertEquals(merged([], { LLAMA_AGENT_VERBOSE: "0" }).flags["verbose"], false);
  assertEquals(merged([], { LLAMA_AGENT_VERBOSE: "true" }).flags["verbose"], true);
  assertEquals(merged([], {}, { verbose: { value: true, line: 2 } }).flags["verbose"], true);
});

Deno.test("loadAcpSettings reads the file under XDG_CONFIG_HOME and says it was there", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "llama-agent-settings-" }));
  try {
    await Deno.mkdir(`${dir}/xdg/llama-agent`, { recursive: true });
    await Deno.writeTextFile(`${dir}/xdg/llama-agent/config.json`, '{\n  "gpu": "off"\n}');
    const env: Record<string, string> = { XDG_CONFIG_HOME: `${dir}/xdg`, HOME: `${dir}/home` };
    const result = await loadAcpSettings(SPECS, flagsOf([]), {
      env: (name) => env[name],
      cwd: dir,
    });
    assert(result.ok, result.ok ? "" : result.message);
    assertEquals(result.settings.file, {
      path: `${dir}/xdg/llama-agent/config.json`,
      exists: true,
    });
    assertEquals(settingOf(result.settings, "gpu").source, {
      kind: "file",
      path: `${dir}/xdg/llama-agent/config.json`,
      line: 2,
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a model set below the layer that set the endpoint belongs to another setup and is dropped", () => {
  const fileModel = { model: { value: "./m.gguf", line: 2 } };
  // --endpoint on the command line: the file's model file is no server model id.
  const withFlag = merged(["--endpoint", "http://localhost:11434/v1"], {}, fileModel);
  assertEquals([withFlag.flags.endpoint, withFlag.flags.model], [
    "http://localhost:11434/v1",
    undefined,
  ]);
  // Both from the file: they belong together.
  const together = merged([], {}, {
    endpoint: { value: "http://localhost:11434/v1", line: 2 },
    model: { value: "qwen3:8b", line: 3 },
  });
  assertEquals(together.flags.model, "qwen3:8b");
});

Deno.test("--endpoint none (or LLAMA_AGENT_ENDPOINT=none) turns off the file's server, and its model with it", () => {
  const file = {
    endpoint: { value: "http://localhost:11434/v1", line: 2 },
    model: { value: "qwen3:8b", line: 3 },
  };
  for (
    const [args, env] of [[["--endpoint", "none"], {}], [[], {
      LLAMA_AGENT_ENDPOINT: "none",
    }]] as const
  ) {
    const settings = merged(args, env, file);
    assertEquals([settings.flags.endpoint, settings.flags.model], [undefined, undefined]);
  }
  const local = merged(["--endpoint", "none", "--model", "/models/x.gguf"], {}, file);
  assertEquals([local.flags.endpoint, local.flags.model], [undefined, "/models/x.gguf"]);
});

Deno.test("~/ in the file is the home directory, as a shell would read it on a flag", () => {
  const settings = merged([], { HOME: "/home/u" }, {
    model: { value: "~/models/x.gguf", line: 2 },
    rules: { value: "rules.json", line: 3 },
  });
  assertEquals([settings.flags.model, settings.flags.rules], [
    "/home/u/models/x.gguf",
    `${FILE_DIR}/rules.json`,
  ]);
});
