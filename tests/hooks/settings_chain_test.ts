import { assert, assertEquals } from "../helpers/assert.ts";
import { loadSettingsChain, settingsChainPaths } from "../../src/hooks/settings/settings_chain.ts";
import { buildRegistry, selectRegistrations } from "../../src/hooks/registry.ts";
import { commandGroup, commands, hooksFile, lineOf, load, withChain } from "./temp_chain.ts";

Deno.test("settingsChainPaths lists user, project and local files in that order", () => {
  assertEquals(settingsChainPaths("/work/p", "/home/u"), [
    { scope: "user", path: "/home/u/.claude/settings.json" },
    { scope: "project", path: "/work/p/.claude/settings.json" },
    { scope: "local", path: "/work/p/.claude/settings.local.json" },
  ]);
});

Deno.test("no HOME skips the user file and never walks up from cwd", () => {
  assertEquals(settingsChainPaths("/work/p/", undefined), [
    { scope: "project", path: "/work/p/.claude/settings.json" },
    { scope: "local", path: "/work/p/.claude/settings.local.json" },
  ]);
});

Deno.test("in $HOME itself the user file is not listed again as the project file", () => {
  const user = { scope: "user", path: "/home/u/.claude/settings.json" };
  const local = { scope: "local", path: "/home/u/.claude/settings.local.json" };
  assertEquals(settingsChainPaths("/home/u", "/home/u"), [user, local]);
  assertEquals(settingsChainPaths("/home/u/", "/home/u"), [user, local]);
});

Deno.test("a file reached again under another name is read once, for its first scope", async () => {
  await withChain({
    user: hooksFile({ PreToolUse: [commandGroup("mine", "shell")] }),
  }, async (dirs) => {
    // The project's .claude is the user's (a dotfiles setup), so its settings.json is too.
    await Deno.symlink(`${dirs.home}/.claude`, `${dirs.cwd}/.claude`);
    const read: string[] = [];
    const loaded = await loadSettingsChain({
      cwd: dirs.cwd,
      home: dirs.home,
      readTextFile: (path) => {
        read.push(path);
        return Deno.readTextFile(path);
      },
    });
    assertEquals(loaded.files.map((f) => `${f.scope} ${f.status}`), [
      "user loaded",
      "local missing",
    ]);
    assertEquals(read, [dirs.userFile, dirs.localFile]);
    assertEquals(commands(loaded), ["mine"]);
  });
});

Deno.test("hooks from user, project and local files merge additively in chain order", async () => {
  await withChain({
    user: hooksFile({ PreToolUse: [commandGroup("user-pre", "shell")], Stop: [commandGroup("u")] }),
    project: hooksFile({ PreToolUse: [commandGroup("project-pre", "shell")] }),
    local: hooksFile({ PreToolUse: [commandGroup("local-pre")], Stop: [commandGroup("l")] }),
  }, async (dirs) => {
    const loaded = await load(dirs);
    assertEquals(loaded.diagnostics, []);
    assertEquals(commands(loaded), ["user-pre", "u", "project-pre", "local-pre", "l"]);
    assertEquals(loaded.handlers.map((h) => h.source.scope), [
      "user",
      "user",
      "project",
      "local",
      "local",
    ]);
    assertEquals(loaded.files.map((f) => f.status), ["loaded", "loaded", "loaded"]);
    const registry = buildRegistry(loaded);
    const pre = selectRegistrations(registry, "PreToolUse", "shell").matched.map((r) => r.id);
    assertEquals(pre, [
      "user:/hooks/PreToolUse/0/hooks/0",
      "project:/hooks/PreToolUse/0/hooks/0",
      "local:/hooks/PreToolUse/0/hooks/0",
    ]);
  });
});

Deno.test("comments and trailing commas are accepted and where they are is recorded", async () => {
  const text = [
    "// a line comment",
    "{",
    '  "hooks": { /* block */',
    '    "Stop": [{ "hooks": [{ "type": "command", "command": "echo hi" },] }],',
    "  },",
    "}",
  ].join("\n");
  await withChain({ project: text }, async (dirs) => {
    const loaded = await load(dirs);
    assertEquals(loaded.diagnostics, []);
    assertEquals(commands(loaded), ["echo hi"]);
    const jsonc = loaded.files[1]?.settings?.jsonc;
    assertEquals(jsonc?.comments, [{ line: 1, column: 1 }, { line: 3, column: 14 }]);
    assertEquals(jsonc?.trailingCommas, [
      { line: 4, column: 69 },
      { line: 4, column: 74 },
      { line: 5, column: 4 },
    ]);
  });
});

Deno.test("a plain JSON file records no JSONC usage", async () => {
  await withChain({ project: hooksFile({ Stop: [commandGroup("a")] }) }, async (dirs) => {
    const loaded = await load(dirs);
    assertEquals(loaded.files[1]?.settings?.jsonc, { comments: [], trailingCommas: [] });
  });
});

Deno.test("missing files are skipped silently", async () => {
  await withChain({ project: hooksFile({ Stop: [commandGroup("only")] }) }, async (dirs) => {
    const loaded = await load(dirs);
    assertEquals(loaded.diagnostics, []);
    assertEquals(commands(loaded), ["only"]);
    assertEquals(loaded.files.map((f) => f.status), ["missing", "loaded", "missing"]);
  });
});

Deno.test("a cwd without .claude gives no diagnostics and no handlers", async () => {
  await withChain({}, async (dirs) => {
    const loaded = await load(dirs);
    assertEquals(loaded.diagnostics, []);
    assertEquals(loaded.handlers, []);
    assertEquals(loaded.skipped, []);
    assertEquals(loaded.disabledBy, []);
    assertEquals(buildRegistry(loaded).registrations, []);
  });
});

Deno.test("without HOME a user file is never read", async () => {
  await withChain({ user: "not json at all" }, async (dirs) => {
    const loaded = await loadSettingsChain({ cwd: dirs.cwd, home: undefined });
    assertEquals(loaded.diagnostics, []);
    assertEquals(loaded.files.map((f) => f.scope), ["project", "local"]);
  });
});

Deno.test("an unparseable file is one diagnostic with line and column; the others still load", async () => {
  const broken = '{\n  "hooks": {\n    "Stop": [ { "hooks": [] ]\n  }\n}';
  await withChain({
    user: hooksFile({ Stop: [commandGroup("user-stop")] }),
    project: broken,
    local: hooksFile({ Stop: [commandGroup("local-stop")] }),
  }, async (dirs) => {
    const loaded = await load(dirs);
    assertEquals(loaded.diagnostics, [{
      code: "SETTINGS_PARSE",
      severity: "error",
      file: dirs.projectFile,
      pointer: "",
      line: 3,
      column: 29,
      message: 'Invalid JSON: expected ","',
    }]);
    assertEquals(commands(loaded), ["user-stop", "local-stop"]);
    assertEquals(loaded.files.map((f) => f.status), ["loaded", "invalid", "loaded"]);
  });
});

Deno.test("an unreadable file is one diagnostic; the others still load", async () => {
  await withChain({ local: hooksFile({ Stop: [commandGroup("local-stop")] }) }, async (dirs) => {
    await Deno.mkdir(dirs.projectFile, { recursive: true });
    const loaded = await load(dirs);
    assertEquals(loaded.diagnostics.length, 1);
    const [d] = loaded.diagnostics;
    assertEquals([d?.code, d?.file, d?.pointer, d?.line], [
      "SETTINGS_UNREADABLE",
      dirs.projectFile,
      "",
      undefined,
    ]);
    assert(d?.message.startsWith("Cannot read settings file: "), d?.message);
    assertEquals(commands(loaded), ["local-stop"]);
  });
});

Deno.test("a top level that is not an object is a diagnostic; an empty file is {}", async () => {
  await withChain({ user: "", project: "[1, 2]" }, async (dirs) => {
    const loaded = await load(dirs);
    assertEquals(loaded.diagnostics.map((d) => [d.code, d.file, d.line, d.message]), [
      ["SETTINGS_INVALID", dirs.projectFile, 1, "Settings must be a JSON object"],
    ]);
    assertEquals(loaded.files.map((f) => f.status), ["loaded", "invalid", "missing"]);
  });
});

Deno.test("top-level keys other than hooks and disableAllHooks are ignored", async () => {
  const text = hooksFile({ Stop: [commandGroup("s")] }, {
    permissions: "not even an object",
    env: 42,
    model: null,
    statusLine: [1, 2, 3],
  });
  await withChain({ project: text }, async (dirs) => {
    const loaded = await load(dirs);
    assertEquals(loaded.diagnostics, []);
    assertEquals(commands(loaded), ["s"]);
  });
});

/** One bad entry beside a good PreToolUse group: it must cost only itself. */
Deno.test("disableAllHooks: true in any one file drops hooks from every file", async () => {
  await withChain({
    user: hooksFile({ PreToolUse: [commandGroup("u")] }),
    project: hooksFile({ Stop: [commandGroup("p")] }),
    local: JSON.stringify({ disableAllHooks: true }),
  }, async (dirs) => {
    const loaded = await load(dirs);
    assertEquals(loaded.diagnostics, []);
    assertEquals(loaded.disabledBy, [dirs.localFile]);
    const registry = buildRegistry(loaded);
    assertEquals(registry.registrations, []);
    assertEquals(selectRegistrations(registry, "PreToolUse", "shell").matched, []);
    assertEquals(registry.notRegistered.map((n) => [n.event, n.status]), [
      ["PreToolUse", "disabled"],
      ["Stop", "disabled"],
    ]);
  });
});

Deno.test("disableAllHooks: true in the user file beats a project file's false", async () => {
  await withChain({
    user: JSON.stringify({ disableAllHooks: true }),
    project: hooksFile({ Stop: [commandGroup("p")] }, { disableAllHooks: false }),
  }, async (dirs) => {
    const loaded = await load(dirs);
    assertEquals(loaded.disabledBy, [dirs.userFile]);
    assertEquals(buildRegistry(loaded).registrations, []);
  });
});

Deno.test('disableAllHooks: "yes" is a diagnostic and disables nothing', async () => {
  const text = hooksFile({ Stop: [commandGroup("p")] }, { disableAllHooks: "yes" });
  await withChain({ project: text }, async (dirs) => {
    const loaded = await load(dirs);
    assertEquals(loaded.diagnostics.map((d) => [d.code, d.pointer, d.line, d.message]), [
      [
        "SETTINGS_INVALID",
        "/disableAllHooks",
        lineOf(text, "disableAllHooks"),
        '"disableAllHooks" must be true or false',
      ],
    ]);
    assertEquals(loaded.disabledBy, []);
    assertEquals(commands(loaded), ["p"]);
  });
});

Deno.test("a hooks value that is not an object is a diagnostic; disableAllHooks still applies", async () => {
  const text = JSON.stringify({ hooks: ["Stop"], disableAllHooks: true }, null, 2);
  await withChain({ project: text }, async (dirs) => {
    const loaded = await load(dirs);
    assertEquals(loaded.diagnostics.map((d) => [d.code, d.pointer, d.line]), [
      ["SETTINGS_INVALID", "/hooks", 2],
    ]);
    assertEquals(loaded.disabledBy, [dirs.projectFile]);
  });
});

Deno.test("the same handler in user and project files runs once per firing", async () => {
  const same = commandGroup("./check.sh", "shell");
  await withChain({
    user: hooksFile({ PreToolUse: [same] }),
    project: hooksFile({ PreToolUse: [same, commandGroup("./other.sh", "shell")] }),
  }, async (dirs) => {
    const registry = buildRegistry(await load(dirs));
    assertEquals(registry.registrations.length, 3);
    const selection = selectRegistrations(registry, "PreToolUse", "shell");
    assertEquals(selection.matched.map((r) => r.id), [
      "user:/hooks/PreToolUse/0/hooks/0",
      "project:/hooks/PreToolUse/1/hooks/0",
    ]);
    assertEquals(selection.unmatched.map((u) => [u.registration.id, u.reason]), [
      ["project:/hooks/PreToolUse/0/hooks/0", "duplicate of user:/hooks/PreToolUse/0/hooks/0"],
    ]);
  });
});

Deno.test("an injected reader drives the loader without touching the disk", async () => {
  const files = new Map([["/p/.claude/settings.json", hooksFile({ Stop: [commandGroup("s")] })]]);
  const read = (path: string) => {
    const text = files.get(path);
    return text === undefined
      ? Promise.reject(new Deno.errors.NotFound(path))
      : Promise.resolve(text);
  };
  const loaded = await loadSettingsChain({ cwd: "/p", home: "/nowhere", readTextFile: read });
  assertEquals(commands(loaded), ["s"]);
  assertEquals(loaded.handlers[0]?.source, {
    scope: "project",
    file: "/p/.claude/settings.json",
    pointer: "/hooks/Stop/0/hooks/0",
    line: 6,
  });
});

// Speed is measured in bench/dispatch.ts; here only that 50 groups all register.
Deno.test("50 matcher groups all become registrations in file order", async () => {
  const groups = Array.from({ length: 50 }, (_, i) => ({
    matcher: i % 2 === 0 ? `tool_${i}|shell` : `^mcp__s${i}__.*`,
    hooks: [{ type: "command", command: `./hook_${i}.sh`, timeout: 5 }],
  }));
  await withChain({ project: hooksFile({ PreToolUse: groups }) }, async (dirs) => {
    const registry = buildRegistry(await load(dirs));
    assertEquals(registry.registrations.length, 50);
    assertEquals(
      registry.registrations.map((r) => r.matcherSource),
      groups.map((g) => g.matcher),
    );
  });
});
