/**
 * Seeded fuzzing of \`hooks lint\`: random settings chains (and random command lines for the shell
 * reader) through the real loader must never make the lint throw.
 */
import { assert } from "../helpers/assert.ts";
import { mulberry32 } from "../helpers/mulberry32.ts";
import { loadSettingsChain } from "../../src/hooks/settings/settings_chain.ts";
import { lintSettings, type StatFile } from "../../src/hooks/lint/settings_lint.ts";
import { fixMatchers } from "../../src/hooks/lint/matcher_fix.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";

Deno.test("lint and --fix never throw, whatever the loader accepted", async () => {
  const next = mulberry32(0x1157);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const values: unknown[] = [
    null,
    true,
    0,
    -1,
    5000,
    1e308,
    "",
    "*",
    "|",
    "(",
    "Bash",
    "Bash(git *)",
    "shell(",
    "^mcp__",
    "$CLAUDE_PROJECT_DIR/x.sh",
    '"$CLAUDE_PROJECT_DIR',
    "`$(${",
    [],
    {},
    ["$CLAUDE_PROJECT_DIR/y"],
    { A: "$B" },
  ];
  const keys = [
    "type",
    "command",
    "args",
    "timeout",
    "matcher",
    "hooks",
    "url",
    "headers",
    "allowedEnvVars",
    "prompt",
    "model",
    "onFailure",
    "async",
    "if",
    "__proto__",
  ];
  const events = ["PreToolUse", "Stop", "SessionStart", "PreCompact", "CwdChanged", "Nope"];
  // Fragments a command line is made of, so the shell reader meets every quote and bracket.
  const fragments = ["$CLAUDE_PROJECT_DIR", "${CLAUDE_PROJECT_DIR}", "/z", "bash ", " ", '"', "'"];
  fragments.push("[[", "x=(", "case ", "tool_name", '"Bash"', "<<", "function ");
  fragments.push("\\", "`", "$(", "${", ")", "}", "$", "<", ">", "2>&1", "|", ";", "\n", "#", "x=");
  const shellNoise = () => {
    let text = "";
    for (let i = next() * 12; i > 0; i--) text += pick(fragments);
    return text === "" ? "a" : text;
  };
  const handler = () => {
    const value: Record<string, unknown> = { type: pick(["command", "http", "prompt", "x"]) };
    for (let i = next() * 4; i > 0; i--) {
      // defineProperty: "__proto__" must become an own key, as JSON.parse makes it.
      Object.defineProperty(value, pick(keys), {
        value: pick(values),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    if (value.type === "command") value.command = shellNoise();
    return value;
  };
  const file = () => {
    const hooks: Record<string, unknown> = {};
    for (let i = next() * 4; i > 0; i--) {
      hooks[pick(events)] = next() < 0.1 ? pick(values) : [
        { matcher: pick(values), hooks: [handler(), handler()] },
        pick(values),
      ];
    }
    return JSON.stringify({ hooks, disableAllHooks: pick([true, false, undefined, 1]) });
  };
  const statFile: StatFile = (path) =>
    Promise.resolve(path.endsWith("z") ? null : { isFile: false, mode: 0 });
  for (let run = 0; run < 500; run++) {
    const texts = [file(), file(), next() < 0.2 ? "{ // x\n}" : file()];
    const loaded = await loadSettingsChain({
      cwd: "/p",
      home: "/h",
      readTextFile: (path) =>
        Promise.resolve(texts[path.startsWith("/h") ? 0 : path.endsWith("local.json") ? 2 : 1]!),
    });
    const profile = compatProfile(pick(["llama", "claude"] as const));
    const diagnostics = await lintSettings(loaded, {
      cwd: "/p",
      profile,
      statFile,
      findCommands: (names) =>
        Promise.resolve(
          new Map(names.map((n) => [n, pick(["file", "builtin", "missing"] as const)])),
        ),
      readScript: () => Promise.resolve(shellNoise()),
    });
    assert(diagnostics.length >= loaded.diagnostics.length, `run ${run}`);
    for (const text of texts) fixMatchers(text, profile);
    for (const d of diagnostics) {
      assert(!d.message.endsWith("."), d.message);
      assert(d.pointer === "" || d.pointer.startsWith("/"), d.pointer);
    }
  }
});
