import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { makeFifo, releaseFifo } from "../hooks/special_files.ts";
import type { FlagSpec } from "../../src/cli/command_spec.ts";
import { settingSpecs } from "../../src/cli/options/setting_spec.ts";
import {
  loadUserConfig,
  parseUserConfig,
  userConfigPath,
} from "../../src/cli/options/user_config_file.ts";

const FLAGS: FlagSpec[] = [
  { name: "model", type: "string", description: "The model" },
  { name: "ctx-size", type: "string", description: "Context size" },
  { name: "api-key-env", type: "string", description: "The key's variable" },
  { name: "gpu", type: "string", choices: ["auto", "off"], description: "GPU" },
  { name: "plugin-dir", type: "string", repeatable: true, description: "Plugins" },
  { name: "verbose", type: "boolean", description: "Talk more" },
  { name: "compact-threshold", type: "string", description: "A share" },
  { name: "tool-output-share", type: "string", description: "A share" },
];
const SPECS = settingSpecs(FLAGS, { "ctx-size": null }, ["compact-threshold", "tool-output-share"]);
const PATH = "/home/u/.config/llama-agent/config.json";
const ROOTS = { launchDir: "/work", home: "/home/u" };

function problemsOf(text: string): readonly string[] {
  const parsed = parseUserConfig(PATH, text, SPECS);
  assert(!parsed.ok, `expected problems in ${text}`);
  return parsed.problems;
}

async function inTemp<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "llama-agent-config-" }));
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("the config file is under an absolute XDG_CONFIG_HOME, else under HOME, else none", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  assertEquals(
    userConfigPath(env({ XDG_CONFIG_HOME: "/xdg", HOME: "/home/u" })),
    "/xdg/llama-agent/config.json",
  );
  assertEquals(userConfigPath(env({ XDG_CONFIG_HOME: "", HOME: "/home/u" })), PATH);
  // A relative one would be under whatever directory the agent runs in: the project's.
  assertEquals(userConfigPath(env({ XDG_CONFIG_HOME: ".config", HOME: "/home/u" })), PATH);
  assertEquals(userConfigPath(env({ HOME: "relative" })), undefined);
  assertEquals(userConfigPath(env({})), undefined);
});

Deno.test("a JSONC config file gives each key's value under its flag's name, with the key's line", () => {
  const parsed = parseUserConfig(
    PATH,
    [
      "{",
      "  // comments and trailing commas are fine",
      '  "$schema": "https://example.com/schema.json",',
      '  "ctxSize": 8192,',
      '  "model": "models/m.gguf",',
      '  "gpu": "off",',
      '  "pluginDir": ["a", "b"],',
      '  "verbose": true,',
      '  "apiKeyEnv": "MY_KEY",',
      "}",
    ].join("\n"),
    SPECS,
  );
  assert(parsed.ok, JSON.stringify(parsed));
  assertEquals(Object.fromEntries(parsed.values), {
    "ctx-size": { value: "8192", line: 4 },
    model: { value: "models/m.gguf", line: 5 },
    gpu: { value: "off", line: 6 },
    "plugin-dir": { value: ["a", "b"], line: 7 },
    verbose: { value: true, line: 8 },
    "api-key-env": { value: "MY_KEY", line: 9 },
  });
});

Deno.test("a number may be written as a string", () => {
  const parsed = parseUserConfig(PATH, '{\n"ctxSize": "2048"\n}', SPECS);
  assert(parsed.ok);
  assertEquals(parsed.values.get("ctx-size"), { value: "2048", line: 2 });
});

Deno.test("a share may be a JSON number or a string, as on the command line", () => {
  const parsed = parseUserConfig(
    PATH,
    '{\n  "compactThreshold": 0.75,\n  "toolOutputShare": "40%"\n}',
    SPECS,
  );
  assert(parsed.ok, JSON.stringify(parsed));
  assertEquals(Object.fromEntries(parsed.values), {
    "compact-threshold": { value: "0.75", line: 2 },
    "tool-output-share": { value: "40%", line: 3 },
  });
  const asString = parseUserConfig(
    PATH,
    '{"compactThreshold": "0.75", "toolOutputShare": 1}',
    SPECS,
  );
  assert(asString.ok, JSON.stringify(asString));
  assertEquals(asString.values.get("compact-threshold")?.value, "0.75");
  assertEquals(asString.values.get("tool-output-share")?.value, "1");
});

Deno.test("a share that is no share is named by the file, the key's line and the key, with what to write", () => {
  const expected = 'must be a share above 0 and at most 1, such as 0.8 or "80%", got';
  const cases: [string, string][] = [
    ["0", "0"],
    ["1.5", "1.5"],
    ["-0.1", "-0.1"],
    ['"abc"', '"abc"'],
    ['"0"', '"0"'],
    ['"150%"', '"150%"'],
    ['""', '""'],
    ["80", '80: did you mean "80%"?'],
    ['"80"', '"80": did you mean "80%"?'],
    ["true", "a boolean"],
    ["null", "null"],
    ["[0.8]", "an array"],
  ];
  for (const [written, got] of cases) {
    assertEquals(problemsOf(`{\n\n  "compactThreshold": ${written}\n}`), [
      `${PATH}:3: "compactThreshold" ${expected} ${got}`,
    ]);
  }
});

Deno.test("a key given twice is an error naming the key, the file and both lines, even where the values agree", () => {
  assertEquals(
    problemsOf('{\n  "gpu": "auto",\n  "model": "m",\n  "gpu": "off"\n}'),
    [
      `${PATH}:4: "gpu" is given twice, at lines 2 and 4; keep one (the second would silently ` +
      "replace the first)",
    ],
  );
  assertEquals(problemsOf('{"verbose": true, "verbose": true}'), [
    `${PATH}:1: "verbose" is given twice, at lines 1 and 1; keep one (the second would silently ` +
    "replace the first)",
  ]);
});

Deno.test("a key given twice deeper in the file is an error too, at its path", () => {
  const [duplicate] = problemsOf('{\n"pluginDir": ["a"],\n"x": {"a": 1,\n"a": 2}\n}');
  assertEquals(
    duplicate,
    `${PATH}:4: "a" (at /x/a) is given twice, at lines 3 and 4; keep one (the second would ` +
      "silently replace the first)",
  );
});

Deno.test("an empty config file is no settings", () => {
  const parsed = parseUserConfig(PATH, "\n", SPECS);
  assert(parsed.ok);
  assertEquals(parsed.values.size, 0);
});

Deno.test("a bad value is named by the file, the key's line and the key", () => {
  assertEquals(problemsOf('{\n  "model": "m",\n\n  "ctxSize": -3\n}'), [
    `${PATH}:4: "ctxSize" must be a positive integer, got -3`,
  ]);
  assertEquals(problemsOf('{"ctxSize": "big"}'), [
    `${PATH}:1: "ctxSize" must be a positive integer, got "big"`,
  ]);
  assertEquals(problemsOf('{\n"ctxSize": 1.5}'), [
    `${PATH}:2: "ctxSize" must be a positive integer, got 1.5`,
  ]);
  assertEquals(problemsOf('{\n"gpu": "of"\n}'), [
    `${PATH}:2: "gpu" must be one of "auto", "off", not "of": did you mean "off"?`,
  ]);
});

Deno.test("a value of the wrong type names its type, never the value", () => {
  assertEquals(problemsOf('{\n"apiKeyEnv": ["sk-secret"],\n"model": 3,\n"verbose": "yes"\n}'), [
    `${PATH}:2: "apiKeyEnv" must be a string, got an array`,
    `${PATH}:3: "model" must be a string, got a number`,
    `${PATH}:4: "verbose" must be true or false, got a string`,
  ]);
  assertEquals(problemsOf('{"pluginDir": "a"}'), [
    `${PATH}:1: "pluginDir" must be an array of strings, got a string`,
  ]);
  assertEquals(problemsOf('{"ctxSize": null}'), [
    `${PATH}:1: "ctxSize" must be a positive integer, got null`,
  ]);
  assertEquals(problemsOf('{"model": ""}'), [
    `${PATH}:1: "model" must not be empty (leave the key out for the default)`,
  ]);
});

Deno.test("an unknown key is an error that says which setting was meant", () => {
  assertEquals(problemsOf('{\n"ctxsize": 1,\n"ctx-size": 2\n}'), [
    `${PATH}:2: "ctxsize" is not a setting; did you mean "ctxSize"?`,
    `${PATH}:3: "ctx-size" is not a setting; did you mean "ctxSize"?`,
  ]);
  const [unknown] = problemsOf('{"permissions": {}}');
  assertStringIncludes(unknown!, `${PATH}:1: "permissions" is not a setting; the settings are`);
  assertStringIncludes(unknown!, '"ctxSize"');
});

Deno.test("text that is not JSONC, or not an object, is an error at its line", () => {
  assertEquals(problemsOf('{\n  "model": "m"\n  "gpu": "off"\n}'), [
    `${PATH}:3: the file is not valid JSONC: comma expected`,
  ]);
  assertEquals(problemsOf('\n["model"]'), [
    `${PATH}:2: the file must hold a JSON object of settings, got an array`,
  ]);
});

Deno.test("a missing config file is no settings", async () => {
  await inTemp(async (dir) => {
    const loaded = await loadUserConfig(`${dir}/none/config.json`, SPECS, ROOTS);
    assert(loaded.ok);
    assertEquals(loaded.config.exists, false);
    assertEquals(loaded.config.values.size, 0);
  });
});

Deno.test("a config file that is a directory is an error naming it", async () => {
  await inTemp(async (dir) => {
    await Deno.mkdir(`${dir}/config.json`);
    const loaded = await loadUserConfig(`${dir}/config.json`, SPECS, ROOTS);
    assertEquals(loaded, {
      ok: false,
      message:
        `Cannot read config file "${dir}/config.json": it is a directory, not a regular file`,
    });
  });
});

Deno.test("a config file that is a FIFO is refused without waiting for a writer", async () => {
  await inTemp(async (dir) => {
    const path = `${dir}/config.json`;
    await makeFifo(path);
    try {
      const loaded = await loadUserConfig(path, SPECS, ROOTS);
      assertEquals(loaded, {
        ok: false,
        message: `Cannot read config file "${path}": it is a FIFO, not a regular file`,
      });
    } finally {
      // Should a read have been started after all, it ends instead of holding the test.
      releaseFifo(path);
    }
  });
});

Deno.test("a config file with a bad value fails with every problem in it", async () => {
  await inTemp(async (dir) => {
    const path = `${dir}/config.json`;
    await Deno.writeTextFile(path, '{\n"ctxSize": 0,\n"gpu": "cuda"\n}');
    const loaded = await loadUserConfig(path, SPECS, ROOTS);
    assertEquals(loaded, {
      ok: false,
      message: `${path}:2: "ctxSize" must be a positive integer, got 0\n` +
        `${path}:3: "gpu" must be one of "auto", "off", not "cuda"`,
    });
  });
});
