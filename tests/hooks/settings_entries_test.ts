/**
 * Per-entry validation (hooks.md §1): each event key, matcher group and handler is checked on its
 * own; a bad one is one diagnostic at its exact pointer and line, and costs only itself.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import type { Diagnostic } from "../../src/hooks/diagnostic.ts";
import { buildRegistry } from "../../src/hooks/registry.ts";
import { commandGroup, commands, hooksFile, lineOf, load, withChain } from "./temp_chain.ts";

interface BadEntryCase {
  readonly name: string;
  /** The `hooks` object as JSON text, with the good group first. */
  readonly hooks: string;
  readonly code: Diagnostic["code"];
  readonly pointer: string;
  /** A substring on the line the diagnostic must point at. */
  readonly at: string;
  readonly message: string;
  /** Commands that still load. */
  readonly loads: readonly string[];
}

const GOOD =
  `"PreToolUse": [{ "matcher": "shell", "hooks": [{ "type": "command", "command": "good" }] }]`;
const handler = (json: string) => `${GOOD},\n"Stop": [{ "hooks": [\n${json}\n] }]`;

const IF_NOT_A_STRING = '"if" must be one rule as a string, e.g. "Bash(git *)": Claude Code ' +
  "would skip the whole file over this, llama-agent skips only this handler";

const BAD_ENTRIES: readonly BadEntryCase[] = [
  {
    name: "an unknown event name",
    hooks: `${GOOD},\n"PreToolUze": [{ "hooks": [{ "type": "command", "command": "x" }] }]`,
    code: "EVENT_UNKNOWN",
    pointer: "/hooks/PreToolUze",
    at: '"PreToolUze"',
    message: 'Unknown hook event "PreToolUze"',
    loads: ["good"],
  },
  {
    name: "an event whose value is not an array",
    hooks: `${GOOD},\n"Stop": { "hooks": [] }`,
    code: "SETTINGS_INVALID",
    pointer: "/hooks/Stop",
    at: '"Stop"',
    message: '"Stop" must be an array of matcher groups',
    loads: ["good"],
  },
  {
    name: "a matcher group that is not an object",
    hooks:
      `${GOOD},\n"Stop": [\n"echo hi",\n{ "hooks": [{ "type": "command", "command": "ok" }] }]`,
    code: "SETTINGS_INVALID",
    pointer: "/hooks/Stop/0",
    at: '"echo hi"',
    message: 'Matcher group must be an object with "matcher" and "hooks"',
    loads: ["good", "ok"],
  },
  {
    name: "a matcher that is not a string",
    hooks:
      `"PreToolUse": [\n{ "matcher": ["shell"], "hooks": [{ "type": "command", "command": "x" }] },\n` +
      `{ "matcher": "shell", "hooks": [{ "type": "command", "command": "good" }] }]`,
    code: "MATCHER_INVALID",
    pointer: "/hooks/PreToolUse/0/matcher",
    at: '["shell"]',
    message: '"matcher" must be a string',
    loads: ["good"],
  },
  {
    name: "a matcher group without hooks",
    hooks: `${GOOD},\n"Stop": [\n{ "matcher": "" }]`,
    code: "SETTINGS_INVALID",
    pointer: "/hooks/Stop/0/hooks",
    at: '"matcher": ""',
    message: '"hooks" is required: list at least one handler',
    loads: ["good"],
  },
  {
    name: "an empty hooks array",
    hooks: `${GOOD},\n"Stop": [{\n"hooks": [] }]`,
    code: "SETTINGS_INVALID",
    pointer: "/hooks/Stop/0/hooks",
    at: '"hooks": []',
    message: '"hooks" must list at least one handler',
    loads: ["good"],
  },
  {
    name: "a hooks value that is not an array",
    hooks: `${GOOD},\n"Stop": [{\n"hooks": { "type": "command", "command": "x" } }]`,
    code: "SETTINGS_INVALID",
    pointer: "/hooks/Stop/0/hooks",
    at: '"hooks": { "type"',
    message: '"hooks" must be an array of handlers',
    loads: ["good"],
  },
  {
    name: "a handler that is not an object",
    hooks: handler(`"echo hi",\n{ "type": "command", "command": "ok" }`),
    code: "HANDLER_INVALID",
    pointer: "/hooks/Stop/0/hooks/0",
    at: '"echo hi"',
    message: 'Handler must be an object with a "type"',
    loads: ["good", "ok"],
  },
  {
    name: "a handler without a type",
    hooks: handler(`{ "command": "x" },\n{ "type": "command", "command": "ok" }`),
    code: "HANDLER_INVALID",
    pointer: "/hooks/Stop/0/hooks/0/type",
    at: '{ "command": "x" }',
    message: '"type" is required: expected "command", "http", "prompt" or "agent"',
    loads: ["good", "ok"],
  },
  {
    name: "an unknown handler type",
    hooks: handler(`{ "type": "script", "command": "x" },\n{ "type": "command", "command": "ok" }`),
    code: "HANDLER_INVALID",
    pointer: "/hooks/Stop/0/hooks/0/type",
    at: '"script"',
    message: 'Unknown handler type "script": expected "command", "http", "prompt" or "agent"',
    loads: ["good", "ok"],
  },
  {
    name: "a command handler without a command",
    hooks: handler(`{ "type": "command", "timeout": 5 }`),
    code: "HANDLER_INVALID",
    pointer: "/hooks/Stop/0/hooks/0/command",
    at: '"timeout": 5',
    message: '"command" is required',
    loads: ["good"],
  },
  {
    name: "a timeout that is not a number",
    hooks: handler(`{ "type": "command", "command": "x",\n"timeout": "10" }`),
    code: "HANDLER_INVALID",
    pointer: "/hooks/Stop/0/hooks/0/timeout",
    at: '"timeout": "10"',
    message: '"timeout" must be a number of seconds',
    loads: ["good"],
  },
  {
    name: "a timeout that is not positive",
    hooks: handler(`{ "type": "command", "command": "x",\n"timeout": 0 }`),
    code: "HANDLER_INVALID",
    pointer: "/hooks/Stop/0/hooks/0/timeout",
    at: '"timeout": 0',
    message: '"timeout" must be a positive number of seconds',
    loads: ["good"],
  },
  {
    name: "an args element that is not a string",
    hooks: handler(`{ "type": "command", "command": "x", "args": [\n"-v",\n3] }`),
    code: "HANDLER_INVALID",
    pointer: "/hooks/Stop/0/hooks/0/args/1",
    at: "3]",
    message: '"args[1]" must be a string',
    loads: ["good"],
  },
  {
    name: "an http handler with a file URL",
    hooks: handler(`{ "type": "http",\n"url": "file:///etc/passwd" }`),
    code: "HANDLER_INVALID",
    pointer: "/hooks/Stop/0/hooks/0/url",
    at: '"url"',
    message: '"url" must be an http:// or https:// URL',
    loads: ["good"],
  },
  {
    name: "a prompt handler with an empty prompt",
    hooks: handler(`{ "type": "prompt",\n"prompt": "" }`),
    code: "HANDLER_INVALID",
    pointer: "/hooks/Stop/0/hooks/0/prompt",
    at: '"prompt": ""',
    message: '"prompt" must not be empty',
    loads: ["good"],
  },
  {
    name: 'an "if" that is an array of rules',
    hooks: handler(
      `{ "type": "command", "command": "x",\n"if": ["Bash(echo *)"] },\n` +
        `{ "type": "command", "command": "ok", "if": "Bash(git *)" }`,
    ),
    code: "HANDLER_INVALID",
    pointer: "/hooks/Stop/0/hooks/0/if",
    at: '"if": ["Bash',
    message: IF_NOT_A_STRING,
    loads: ["good", "ok"],
  },
  {
    name: 'an "if" that is a number',
    hooks: handler(`{ "type": "http", "url": "http://127.0.0.1:9/h",\n"if": 3 }`),
    code: "HANDLER_INVALID",
    pointer: "/hooks/Stop/0/hooks/0/if",
    at: '"if": 3',
    message: IF_NOT_A_STRING,
    loads: ["good"],
  },
];

for (const c of BAD_ENTRIES) {
  Deno.test(`${c.name} is one diagnostic at its pointer and line, and skips only itself`, async () => {
    const text = `{\n"hooks": {\n${c.hooks}\n}\n}\n`;
    await withChain({ project: text }, async (dirs) => {
      const loaded = await load(dirs);
      assertEquals(
        loaded.diagnostics.map((d) => [d.code, d.severity, d.file, d.pointer, d.message]),
        [
          [c.code, "error", dirs.projectFile, c.pointer, c.message],
        ],
      );
      assertEquals(loaded.diagnostics[0]?.line, lineOf(text, c.at), "line");
      assert((loaded.diagnostics[0]?.column ?? 0) >= 1, "column");
      assertEquals(commands(loaded), [...c.loads]);
    });
  });
}

Deno.test("one invalid regex skips only its own group", async () => {
  const text = hooksFile({
    PreToolUse: [
      commandGroup("before", "shell"),
      commandGroup("bad", "mcp__(x"),
      commandGroup("after", "^fs_"),
    ],
  });
  await withChain(
    { user: hooksFile({ Stop: [commandGroup("u")] }), project: text },
    async (dirs) => {
      const loaded = await load(dirs);
      assertEquals(loaded.diagnostics.length, 1);
      const [d] = loaded.diagnostics;
      assertEquals([d?.code, d?.pointer, d?.line], [
        "MATCHER_INVALID",
        "/hooks/PreToolUse/1/matcher",
        lineOf(text, '"mcp__(x"'),
      ]);
      assert(d?.message.startsWith('"mcp__(x" is not a valid regular expression'), d?.message);
      assertEquals(commands(loaded), ["u", "before", "after"]);
    },
  );
});

Deno.test("a matcher on an event that ignores matchers never costs its group", async () => {
  await withChain({ project: hooksFile({ Stop: [commandGroup("s", "[")] }) }, async (dirs) => {
    const loaded = await load(dirs);
    assertEquals(loaded.diagnostics, []);
    assertEquals(commands(loaded), ["s"]);
    assertEquals(loaded.handlers[0]?.matcherSource, "[");
  });
});

Deno.test("dropped and unsupported events are accepted with no registration and no diagnostic", async () => {
  const text = hooksFile({
    SessionEnd: [commandGroup("bye")],
    PermissionRequest: [{ matcher: "Bash", hooks: [{ type: "command", command: "p" }, "junk"] }],
    PostToolBatch: [commandGroup("batch")],
    CwdChanged: "not even an array",
    Stop: [commandGroup("stop")],
  });
  await withChain({ project: text }, async (dirs) => {
    const loaded = await load(dirs);
    assertEquals(loaded.diagnostics, []);
    assertEquals(commands(loaded), ["stop"]);
    assertEquals(
      loaded.skipped.map((s) => [s.event, s.group, s.matcherSource, s.source.pointer]),
      [
        ["SessionEnd", "dropped", undefined, "/hooks/SessionEnd/0/hooks/0"],
        ["PermissionRequest", "dropped", "Bash", "/hooks/PermissionRequest/0/hooks/0"],
        ["PostToolBatch", "unsupported", undefined, "/hooks/PostToolBatch/0/hooks/0"],
        ["CwdChanged", "unsupported", undefined, "/hooks/CwdChanged"],
      ],
    );
    const registry = buildRegistry(loaded);
    assertEquals(registry.registrations.map((r) => r.event), ["Stop"]);
    assertEquals(registry.notRegistered.map((n) => n.status), [
      "dropped",
      "dropped",
      "unsupported",
      "unsupported",
    ]);
  });
});

Deno.test("never-emitted events create registrations", async () => {
  await withChain({ project: hooksFile({ PostCompact: [commandGroup("c")] }) }, async (dirs) => {
    const loaded = await load(dirs);
    assertEquals(buildRegistry(loaded).registrations.map((r) => r.id), [
      "project:/hooks/PostCompact/0/hooks/0",
    ]);
  });
});

Deno.test("an unknown event is a diagnostic that suggests the right spelling; the rest loads", async () => {
  const text = hooksFile({ pretooluse: [commandGroup("x")], Stop: [commandGroup("s")] });
  await withChain({ local: text }, async (dirs) => {
    const loaded = await load(dirs);
    assertEquals(loaded.diagnostics.map((d) => [d.code, d.severity, d.file, d.message]), [
      [
        "EVENT_UNKNOWN",
        "error",
        dirs.localFile,
        'Unknown hook event "pretooluse": did you mean "PreToolUse"',
      ],
    ]);
    assertEquals(commands(loaded), ["s"]);
  });
});

Deno.test("unknown extra handler fields are accepted", async () => {
  const text = hooksFile({
    Stop: [{
      hooks: [{ type: "command", command: "s", async: true, statusMessage: "x", once: 1 }],
    }],
  });
  await withChain({ project: text }, async (dirs) => {
    const loaded = await load(dirs);
    assertEquals(loaded.diagnostics, []);
    assertEquals(commands(loaded), ["s"]);
  });
});
