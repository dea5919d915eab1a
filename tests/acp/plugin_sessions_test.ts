/**
 * Plugin hooks in real in-process sessions (claude-compat.md §6): a plugin's PreToolUse guard
 * keeps `rm -rf` off the disk and a SessionStart context loader using `${CLAUDE_PLUGIN_ROOT}` and
 * `CLAUDE_PLUGIN_DATA` feeds the model, both from `--plugin-dir` and as installed plugins laid
 * out as Claude Code leaves them (a directory marketplace and a cache copy), enabled, disabled,
 * and under `disableAllHooks`. The llama profile loads no plugin.
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { GenerateRequest } from "../../src/model/model.ts";
import type { CompatProfileId } from "../../src/profile/compat_profile.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import {
  type InstallOptions,
  pluginHooksJson,
  withTempRoot,
  writeFiles,
  writeInstallRecords,
  writePlugin,
} from "../hooks/plugin_fixture.ts";
import { callTool, reply, type Step, steppedModel } from "./fake_models.ts";
import { seen } from "./hook_fixtures.ts";
import { withInMemoryAgent } from "./in_memory_agent.ts";

const text = (t: string): ContentBlock[] => [{ type: "text", text: t }];

/** A guard as a plugin ships it: refuses any Bash call whose input mentions `rm -rf`. */
const GUARD = `#!/bin/sh
input=$(cat)
echo "$1" >> "$CLAUDE_PROJECT_DIR/guard.log"
if printf '%s' "$input" | grep -q 'rm -rf'; then
  echo "rm -rf is not allowed by the guard plugin" >&2
  exit 2
fi
exit 0
`;

/** Loads the plugin's own notes as context, and leaves a mark in its data directory. */
const CONTEXT = `#!/bin/sh
cat > /dev/null
echo started >> "$CLAUDE_PLUGIN_DATA/starts"
notes=$(cat "$CLAUDE_PLUGIN_ROOT/notes.txt")
printf '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"%s"}}' "$notes"
`;

const hook = (command: string, matcher?: string) => ({
  ...(matcher === undefined ? {} : { matcher }),
  hooks: [{ type: "command", command }],
});

/** Writes the guard-and-context plugin `name` into `dir`. */
function writeGuardPlugin(dir: string, name: string): Promise<string> {
  return writePlugin(dir, name, {
    hooksJson: pluginHooksJson({
      SessionStart: [hook('"${CLAUDE_PLUGIN_ROOT}"/hooks/context.sh')],
      PreToolUse: [hook(`\${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh ${name}`, "Bash")],
    }),
    files: {
      "hooks/guard.sh": GUARD,
      "hooks/context.sh": CONTEXT,
      "notes.txt": `Notes of ${name}: the victim directory is precious.`,
    },
  });
}

interface PluginAgent {
  readonly root: string;
  readonly cwd: string;
  readonly home: string;
  /** What the agent logged besides the session's profile line, which `profileLine` checks. */
  readonly logs: string[];
  /** The line that names the session's profile and why, logged once per session. */
  readonly profileLine: string | undefined;
  /** initialize, session/new, one prompt; returns what the model was given on each call. */
  promptOnce(prompt: string): Promise<GenerateRequest[]>;
}

interface PluginAgentOptions {
  readonly profile: CompatProfileId;
  /** Writes plugins under the temp root and returns the `--plugin-dir` list (default none). */
  readonly pluginDirs?: (root: string) => Promise<string[]>;
  /** Writes the project's and HOME's files before the session starts. */
  readonly setUp?: (place: { root: string; cwd: string; home: string }) => Promise<void>;
  /** The model's steps after the session starts; each request is recorded. */
  readonly calls?: readonly [string, unknown][];
}

/** The in-memory agent with `--plugin-dir` in its config; plugins and marketplaces in a temp root. */
async function withPluginAgent(
  options: PluginAgentOptions,
  fn: (agent: PluginAgent) => Promise<void>,
): Promise<void> {
  await withTempRoot(async (root) => {
    const requests: GenerateRequest[] = [];
    const record = (step: Step): Step => (r) => (requests.push(r), step(r));
    const model = steppedModel([
      ...(options.calls ?? []).map(([name, input]) => record(callTool(name, input))),
      record(reply("done")),
    ]);
    const pluginDirs = await options.pluginDirs?.(root) ?? [];
    await withInMemoryAgent({ profile: options.profile, pluginDirs, model }, async (t) => {
      await options.setUp?.({ root, cwd: t.cwd, home: t.home });
      await fn({
        root,
        cwd: t.cwd,
        home: t.home,
        get logs() {
          return t.logs.filter((line) => !line.startsWith("Session in "));
        },
        get profileLine() {
          return t.logs.find((line) => line.startsWith("Session in "));
        },
        async promptOnce(prompt) {
          const sessionId = await t.newSession();
          await t.agent.request("session/prompt", { sessionId, prompt: text(prompt) });
          return requests;
        },
      });
    });
  });
}

const RM_VICTIM: [string, unknown] = ["Bash", { command: "rm -rf victim", description: "clean" }];

async function writeVictim(cwd: string): Promise<void> {
  await writeFiles(cwd, { "victim/keep.txt": "keep me\n" });
}

async function survives(cwd: string): Promise<boolean> {
  return await Deno.readTextFile(`${cwd}/victim/keep.txt`).then(() => true, () => false);
}

Deno.test("--plugin-dir under --compat claude: the plugin's PreToolUse guard blocks Bash rm -rf and the file survives", async () => {
  await withPluginAgent({
    profile: "claude",
    pluginDirs: async (root) => [await writeGuardPlugin(`${root}/guard-plugin`, "guard")],
    setUp: ({ cwd }) => writeVictim(cwd),
    calls: [RM_VICTIM],
  }, async (t) => {
    const requests = await t.promptOnce("clean up");
    assert(await survives(t.cwd), "the guarded directory is still there");
    assertStringIncludes(seen(requests[1]!), "rm -rf is not allowed by the guard plugin");
    assertEquals(await Deno.readTextFile(`${t.cwd}/guard.log`), "guard\n");
    assertEquals(t.logs, []);
    assertEquals(t.profileLine, `Session in "${t.cwd}": profile claude (set by --compat)`);
  });
});

Deno.test("--plugin-dir: a SessionStart plugin hook reads ${CLAUDE_PLUGIN_ROOT} and writes CLAUDE_PLUGIN_DATA, and its context reaches the model", async () => {
  await withPluginAgent({
    profile: "claude",
    pluginDirs: async (root) => [await writeGuardPlugin(`${root}/guard-plugin`, "guard")],
  }, async (t) => {
    const requests = await t.promptOnce("hi");
    assertStringIncludes(seen(requests[0]!), "Notes of guard: the victim directory is precious.");
    const data = `${t.home}/.claude/plugins/data/guard-inline`;
    assertEquals(await Deno.readTextFile(`${data}/starts`), "started\n");
  });
});

Deno.test("the llama profile loads no plugin: its SessionStart gives no context and makes no data directory", async () => {
  await withPluginAgent({
    profile: "llama",
    pluginDirs: async (root) => [await writeGuardPlugin(`${root}/guard-plugin`, "guard")],
  }, async (t) => {
    const requests = await t.promptOnce("hi");
    assert(!seen(requests[0]!).includes("Notes of guard"));
    const data = await Deno.stat(`${t.home}/.claude/plugins`).then(() => true, () => false);
    assert(!data, "no plugin data directory is made");
  });
});

Deno.test("a broken --plugin-dir is logged like a settings diagnostic, and the session goes on", async () => {
  await withPluginAgent({
    profile: "claude",
    pluginDirs: async (root) => {
      await writeFiles(`${root}/flat`, {
        ".claude-plugin/plugin.json": '{"name":"flat"}',
        "hooks/hooks.json": JSON.stringify({ PreToolUse: [hook("guard", "Bash")] }),
      });
      return [`${root}/flat`];
    },
  }, async (t) => {
    await t.promptOnce("hi");
    assertEquals(t.logs.length, 1, t.logs.join("\n"));
    assertStringIncludes(t.logs[0]!, `hooks: ${t.root}/flat/hooks/hooks.json:1:`);
    assertStringIncludes(t.logs[0]!, 'outside the "hooks" object');
  });
});

/**
 * t2plug installed from the directory marketplace t2market, laid out as claude-compat.md §6b
 * shows: the marketplace's source dir and the cache copy differ only in their notes, so the
 * context says which one ran. The project has a settings SessionStart hook too.
 */
async function installPlugin(
  { root, cwd, home }: { root: string; cwd: string; home: string },
  options: InstallOptions,
): Promise<void> {
  const { sourceDir, cache } = await writeInstallRecords(home, `${root}/market`, options);
  await writeGuardPlugin(sourceDir, "t2plug");
  await writeGuardPlugin(cache, "t2plug");
  await writeFiles(cache, { "notes.txt": "Notes of the cache copy." });
  await writeFiles(cwd, {
    ".claude/settings.json": JSON.stringify({
      hooks: { SessionStart: [hook('echo settings >> "$CLAUDE_PROJECT_DIR/settings.log"')] },
    }),
  });
  await writeVictim(cwd);
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

Deno.test("an installed plugin of a directory marketplace runs from the marketplace's source dir: its guard blocks rm -rf, its context loads", async () => {
  await withPluginAgent({
    profile: "claude",
    setUp: (place) => installPlugin(place, { enabled: true, source: "directory" }),
    calls: [RM_VICTIM],
  }, async (t) => {
    const requests = await t.promptOnce("clean up");
    assert(await survives(t.cwd), "the guarded directory is still there");
    assertStringIncludes(seen(requests[1]!), "rm -rf is not allowed by the guard plugin");
    assertStringIncludes(seen(requests[0]!), "Notes of t2plug: the victim directory is precious.");
    const data = `${t.home}/.claude/plugins/data/t2plug-t2market`;
    assertEquals(await Deno.readTextFile(`${data}/starts`), "started\n");
    assertEquals(await Deno.readTextFile(`${t.cwd}/settings.log`), "settings\n");
    assertEquals(t.logs, []);
  });
});

Deno.test("an installed plugin with a fetched source runs from its cache installPath", async () => {
  await withPluginAgent({
    profile: "claude",
    setUp: (place) => installPlugin(place, { enabled: true, source: "url" }),
  }, async (t) => {
    const requests = await t.promptOnce("hi");
    assertStringIncludes(seen(requests[0]!), "Notes of the cache copy.");
    assertEquals(t.logs, []);
  });
});

Deno.test("an installed plugin set to false in enabledPlugins runs no hook; the settings hook still runs", async () => {
  await withPluginAgent({
    profile: "claude",
    setUp: (place) => installPlugin(place, { enabled: false, source: "directory" }),
    calls: [RM_VICTIM],
  }, async (t) => {
    const requests = await t.promptOnce("clean up");
    assert(!(await survives(t.cwd)), "no guard ran, so the command ran");
    assert(!seen(requests[0]!).includes("Notes of"));
    assert(!(await exists(`${t.home}/.claude/plugins/data`)));
    assertEquals(await Deno.readTextFile(`${t.cwd}/settings.log`), "settings\n");
  });
});

Deno.test("\"disableAllHooks\": true in the user settings runs no hook at all: neither the installed plugin's nor the project's", async () => {
  await withPluginAgent({
    profile: "claude",
    setUp: (place) =>
      installPlugin(place, { enabled: true, source: "directory", disableAllHooks: true }),
  }, async (t) => {
    const requests = await t.promptOnce("hi");
    assert(!seen(requests[0]!).includes("Notes of"));
    assert(!(await exists(`${t.cwd}/settings.log`)), "the project's hook did not run");
    assert(!(await exists(`${t.home}/.claude/plugins/data`)));
  });
});

Deno.test("the llama profile loads no installed plugin either", async () => {
  await withPluginAgent({
    profile: "llama",
    setUp: (place) => installPlugin(place, { enabled: true, source: "directory" }),
  }, async (t) => {
    const requests = await t.promptOnce("hi");
    assert(!seen(requests[0]!).includes("Notes of"));
    assertEquals(await Deno.readTextFile(`${t.cwd}/settings.log`), "settings\n");
  });
});
