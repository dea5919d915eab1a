/**
 * The claude-code-plugins example is a promise to users who get their hooks from Claude Code
 * plugins: its suite passes with the real launcher and leaves the example as it found it, and
 * the plugins load the two ways its README says, from `--plugin-dir` and installed from the
 * example's own marketplace.
 */
import { assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { REPO_ROOT, runCli } from "../helpers/run_cli.ts";

const EXAMPLE = `${REPO_ROOT}/examples/claude-code-plugins`;
const PLUGIN_DIRS = [
  "--plugin-dir",
  "plugins/safety-net",
  "--plugin-dir",
  "plugins/context-loader",
];

/** Every entry under `dir`: its kind, permission bits and, for a file, its text. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (path: string, prefix: string) => {
    for await (const entry of Deno.readDir(path)) {
      const full = `${path}/${entry.name}`;
      const rel = `${prefix}${entry.name}`;
      const info = await Deno.lstat(full);
      const mode = ((info.mode ?? 0) & 0o7777).toString(8);
      if (entry.isDirectory) {
        out[rel] = `dir ${mode}`;
        await walk(full, `${rel}/`);
      } else {
        out[rel] = entry.isFile
          ? `file ${mode} ${await Deno.readTextFile(full)}`
          : `link ${await Deno.readLink(full)}`;
      }
    }
  };
  await walk(dir, "");
  return out;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

async function withHome(fn: (home: string) => Promise<void>): Promise<void> {
  const home = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "claude_code_plugins_example_home_" }),
  );
  try {
    await fn(home);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test("examples/claude-code-plugins: its hooks test suite passes, and leaves the example and the user's HOME as they were", async () => {
  await withHome(async (home) => {
    const before = await snapshot(EXAMPLE);
    const run = await runCli(["hooks", "test"], { cwd: EXAMPLE, home });
    assertEquals(
      run.code,
      0,
      `${run.stdout}\n${run.stderr}\n(the example's hooks need bash and jq)`,
    );
    assertMatch(run.stdout, /^10 passed, 0 failed in [\d.]+ s$/m);
    assertEquals(await snapshot(EXAMPLE), before);
    // The session counter went to each case's own HOME, and no case's copy stayed behind.
    assertEquals(await exists(`${home}/.claude`), false);
    assertEquals(await Array.fromAsync(Deno.readDir(`${home}/.cache/llama-agent/hooks-test`)), []);
  });
});

Deno.test("examples/claude-code-plugins with --plugin-dir: both plugins load, and lint finds nothing", async () => {
  await withHome(async (home) => {
    const list = await runCli(["hooks", "list", "--compat", "claude", ...PLUGIN_DIRS, "--json"], {
      cwd: EXAMPLE,
      home,
    });
    assertEquals(list.code, 0, list.stderr);
    const listed = JSON.parse(list.stdout) as {
      plugins: { id: string; root: string; status: string }[];
      hooks: { event: string; plugin?: string; status: string }[];
    };
    assertEquals(listed.plugins.map((p) => [p.id, p.root, p.status]), [
      ["safety-net@inline", `${EXAMPLE}/plugins/safety-net`, "loaded"],
      ["context-loader@inline", `${EXAMPLE}/plugins/context-loader`, "loaded"],
    ]);
    assertEquals(
      listed.hooks.map((h) => [h.event, h.plugin ?? "settings", h.status]),
      [
        ["SessionStart", "context-loader@inline", "fires"],
        ["PreToolUse", "safety-net@inline", "fires"],
        ["Stop", "settings", "fires"],
      ],
    );
    const lint = await runCli(["hooks", "lint", "--compat", "claude", ...PLUGIN_DIRS], {
      cwd: EXAMPLE,
      home,
    });
    assertEquals(
      [lint.code, lint.stdout.trim()],
      [0, "No problems found\nProfile: claude (set by --compat)"],
      lint.stderr,
    );
  });
});

/**
 * What `claude plugin marketplace add <example>` and `claude plugin install <name>@<market>` leave
 * in HOME (claude-compat.md §6b): the marketplace and the plugins enabled in the user settings,
 * and the two registries.
 */
async function writeInstallRecords(home: string): Promise<void> {
  const market = "llama-agent-examples";
  const source = { source: "directory", path: EXAMPLE };
  const plugins = ["safety-net", "context-loader"];
  const at = "2026-12-01T09:17:23.000Z";
  await Deno.mkdir(`${home}/.claude/plugins`, { recursive: true });
  await Deno.writeTextFile(
    `${home}/.claude/settings.json`,
    JSON.stringify({
      extraKnownMarketplaces: { [market]: { source } },
      enabledPlugins: Object.fromEntries(plugins.map((name) => [`${name}@${market}`, true])),
    }),
  );
  await Deno.writeTextFile(
    `${home}/.claude/plugins/known_marketplaces.json`,
    JSON.stringify({ [market]: { source, installLocation: EXAMPLE, lastUpdated: at } }),
  );
  await Deno.writeTextFile(
    `${home}/.claude/plugins/installed_plugins.json`,
    JSON.stringify({
      version: 2,
      plugins: Object.fromEntries(plugins.map((name) => [`${name}@${market}`, [{
        scope: "user",
        installPath: `${home}/.claude/plugins/cache/${market}/${name}/1.0.0`,
        version: "1.0.0",
        installedAt: at,
        lastUpdated: at,
      }]])),
    }),
  );
}

Deno.test("examples/claude-code-plugins installed from its own marketplace: both plugins load from their source dirs, and the README shows that marketplace.json", async () => {
  await withHome(async (home) => {
    await writeInstallRecords(home);
    const list = await runCli(["hooks", "list", "--compat", "claude", "--json"], {
      cwd: EXAMPLE,
      home,
    });
    assertEquals(list.code, 0, list.stderr);
    const listed = JSON.parse(list.stdout) as {
      plugins: { id: string; root: string; status: string }[];
    };
    assertEquals(listed.plugins.map((p) => [p.id, p.root, p.status]), [
      ["safety-net@llama-agent-examples", `${EXAMPLE}/plugins/safety-net`, "loaded"],
      ["context-loader@llama-agent-examples", `${EXAMPLE}/plugins/context-loader`, "loaded"],
    ]);
    const readme = await Deno.readTextFile(`${EXAMPLE}/README.md`);
    const marketplace = await Deno.readTextFile(`${EXAMPLE}/.claude-plugin/marketplace.json`);
    assertStringIncludes(readme, "```json\n" + marketplace + "```");
  });
});
