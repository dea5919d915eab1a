import { assert, assertEquals } from "../helpers/assert.ts";
import { livingPids, livingPidsMatching } from "../hooks/process_probe.ts";
import { makeFifo } from "../hooks/special_files.ts";
import { AgentError } from "../../src/error.ts";
import { runEventCase } from "../../src/testing/runner/event_case_runner.ts";
import { createHermeticPlace, hermeticEnv } from "../../src/testing/runner/hermetic_env.ts";
import { runSessionCase } from "../../src/testing/runner/session_case_runner.ts";
import { EventCase, SessionCase } from "../../src/testing/scenarios/scenario_schema.ts";
import { caseInput, command, hooksSettings, treeOf, withTempProject } from "./scenario_project.ts";

Deno.test("hermeticEnv: the allowlist, fixed TZ and LANG, the case's env, always its own HOME and a git ceiling at its root", () => {
  const outer: Record<string, string> = {
    PATH: "/bin",
    USER: "me",
    SHELL: "/bin/zsh",
    HOME: "/home/me",
    AWS_SECRET_ACCESS_KEY: "x",
    TZ: "Europe/Paris",
    LC_ALL: "fr_FR",
    TMPDIR: "/var/tmp",
  };
  const paths = { root: "/t", home: "/t/home", tmp: "/t/tmp" };
  const env = hermeticEnv((name) => outer[name], paths, { CASE: "1", HOME: "/home/me" });
  assertEquals(env, {
    PATH: "/bin",
    USER: "me",
    SHELL: "/bin/zsh",
    TZ: "UTC",
    LANG: "C.UTF-8",
    TMPDIR: "/t/tmp",
    CASE: "1",
    HOME: "/t/home",
    // Git run in the copy or HOME must not find a repository around them (a HOME kept in git).
    GIT_CEILING_DIRECTORIES: "/t",
  });
  assertEquals(hermeticEnv(() => undefined, paths)["PATH"], "/usr/local/bin:/usr/bin:/bin");
  assertEquals(hermeticEnv(() => undefined, paths, { TZ: "Asia/Tokyo" })["TZ"], "Asia/Tokyo");
  assertEquals(
    hermeticEnv(() => undefined, paths, { GIT_CEILING_DIRECTORIES: "/srv" })[
      "GIT_CEILING_DIRECTORIES"
    ],
    "/srv:/t",
  );
});

Deno.test("hooks see neither the outer environment nor the real HOME, and TZ and LANG are fixed", async () => {
  const report =
    `cat > /dev/null\nprintf '{"systemMessage":"secret=%s tz=%s lang=%s case=%s home=%s"}' ` +
    `"\${OUTER_SECRET:-unset}" "$TZ" "$LANG" "$CASE_VAR" "$(basename "$HOME")"\n`;
  await withTempProject({
    ".claude/settings.json": hooksSettings({ Stop: [{ hooks: [command("./hooks/report.sh")] }] }),
    "hooks/report.sh": report,
  }, async (project) => {
    const spec = EventCase.parse({
      name: "env",
      event: "Stop",
      expect: { systemMessage: "secret=unset tz=UTC lang=C.UTF-8 case=yes home=home" },
    });
    const result = await runEventCase(
      caseInput(project, spec, { placement: { env: { CASE_VAR: "yes" } } }),
    );
    assertEquals(result.failures, []);
  });
});

Deno.test("a hook writing to $HOME, $TMPDIR and (isolated) the cwd leaves the real ones untouched", async () => {
  const writer =
    'cat > /dev/null\necho x > "$HOME/h.txt"\necho x > "$TMPDIR/t.txt"\necho x > ./c.txt\nrm -f ./hooks/writer.sh\n';
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      PreToolUse: [{ hooks: [command("./hooks/writer.sh")] }],
    }),
    "hooks/writer.sh": writer,
    "node_modules/big/index.js": "x",
    "src/.git/HEAD": "x",
  }, async (project) => {
    const before = await treeOf(project.dir);
    const spec = EventCase.parse({
      name: "writes",
      event: "PreToolUse",
      input: { tool_name: "shell" },
      isolate: true,
      expect: { exitCodes: [0], errors: 0 },
    });
    const result = await runEventCase(caseInput(project, spec, { placement: { isolate: true } }));
    assertEquals(result.failures, []);
    assertEquals(await treeOf(project.dir), before);
    assertEquals(await treeOf(project.realHome), []);

    const session = SessionCase.parse({
      name: "session writes",
      isolate: true,
      session: {
        model: {
          turns: [{
            toolCalls: [{
              name: "shell",
              input: { command: "echo y > $HOME/s.txt; echo y > s.txt" },
            }],
          }, { text: "ok" }],
        },
        prompts: ["go"],
        // The command must really write, in the copy and the case's HOME.
        execute: true,
      },
      expect: { files: { "s.txt": "y\n", "c.txt": "x\n", "hooks/writer.sh": null } },
    });
    const sessionResult = await runSessionCase(
      caseInput(project, session, { placement: { isolate: true } }),
    );
    assertEquals(sessionResult.failures, []);
    assertEquals(await treeOf(project.dir), before);
    assertEquals(await treeOf(project.realHome), []);
  });
});

Deno.test("a settings override replaces the user, project and local files", async () => {
  await withTempProject({
    ".claude/settings.json": hooksSettings({ Stop: [{ hooks: [command("./hooks/project.sh")] }] }),
    ".claude/settings.local.json": hooksSettings({
      Stop: [{ hooks: [command("./hooks/local.sh")] }],
    }),
    "fixture_home/.claude/settings.json": hooksSettings({
      Stop: [{ hooks: [command("./hooks/user.sh")] }],
    }),
    "fixture_home/notes.txt": "kept",
    "override.json": `// JSONC\n${
      JSON.stringify(hooksSettings({ Stop: [{ hooks: [command("./hooks/file.sh")] }] }))
    }`,
    "hooks/project.sh": "exit 0\n",
    "hooks/local.sh": "exit 0\n",
    "hooks/user.sh": "exit 0\n",
    "hooks/inline.sh": 'test -f "$HOME/notes.txt" || exit 1\n',
    "hooks/file.sh": "exit 0\n",
  }, async (project) => {
    const home = `${project.dir}/fixture_home`;
    const chain = await runEventCase(caseInput(
      project,
      EventCase.parse({
        name: "chain",
        event: "Stop",
        expect: { matched: ["user.sh", "project.sh", "local.sh"] },
      }),
      { placement: { home } },
    ));
    assertEquals(chain.failures, []);

    const inline = await runEventCase(caseInput(
      project,
      EventCase.parse({
        name: "inline",
        event: "Stop",
        expect: { matched: ["inline.sh"], exitCodes: [0] },
      }),
      {
        placement: {
          home,
          settings: {
            kind: "inline",
            settings: hooksSettings({ Stop: [{ hooks: [command("./hooks/inline.sh")] }] }),
          },
        },
      },
    ));
    assertEquals(inline.failures, []);

    const file = await runEventCase(caseInput(
      project,
      EventCase.parse({
        name: "file",
        event: "Stop",
        expect: { matched: ["file.sh"] },
      }),
      { placement: { settings: { kind: "file", path: `${project.dir}/override.json` } } },
    ));
    assertEquals(file.failures, []);
    assertEquals(
      await Deno.readTextFile(`${project.dir}/.claude/settings.json`),
      JSON.stringify(
        hooksSettings({ Stop: [{ hooks: [command("./hooks/project.sh")] }] }),
        null,
        2,
      ),
    );
  });
});

Deno.test("createHermeticPlace: a missing fixture home is an error; dispose removes everything", async () => {
  await withTempProject({ "a.txt": "a" }, async (project) => {
    let thrown: unknown;
    try {
      await createHermeticPlace({
        projectDir: project.dir,
        placement: { home: `${project.dir}/no_such_home` },
        outerEnv: project.outerEnv,
      });
    } catch (error) {
      thrown = error;
    }
    assert(thrown instanceof AgentError, String(thrown));
    assert(
      thrown.message.startsWith(`Cannot use "${project.dir}/no_such_home" as the home of a case`),
    );

    const place = await createHermeticPlace({
      projectDir: project.dir,
      placement: { isolate: true },
      outerEnv: project.outerEnv,
    });
    assertEquals(place.isolated, true);
    assert(place.cwd.startsWith(place.root) && place.cwd.endsWith("/project"), place.cwd);
    assertEquals(await Deno.readTextFile(`${place.cwd}/a.txt`), "a");
    assertEquals(place.lookup("HOME"), place.home);
    await place.dispose();
    await Deno.stat(place.root).then(
      () => assert(false, "the root is removed"),
      (error) => assert(error instanceof Deno.errors.NotFound),
    );
  });
});

Deno.test("createHermeticPlace: makes the scratch directory when it is missing, and says whether HOME was made empty", async () => {
  await withTempProject({ "fixture_home/.profile": "x" }, async (project) => {
    const scratch = `${project.outerEnv("XDG_CACHE_HOME")}/llama-agent/hooks-test`;
    await Deno.stat(scratch).then(
      () => assert(false, "no scratch directory before the first place"),
      (error) => assert(error instanceof Deno.errors.NotFound),
    );
    const emptiness = async (placement: Parameters<typeof createHermeticPlace>[0]["placement"]) => {
      const place = await createHermeticPlace({
        projectDir: project.dir,
        placement,
        outerEnv: project.outerEnv,
      });
      try {
        assert(place.root.startsWith(`${await Deno.realPath(scratch)}/`), place.root);
        return place.homeIsEmpty;
      } finally {
        await place.dispose();
      }
    };
    assertEquals(await emptiness({}), true);
    assertEquals(await emptiness({ isolate: true }), true);
    assertEquals(await emptiness({ home: `${project.dir}/fixture_home` }), false);
    assertEquals(await emptiness({ settings: { kind: "inline", settings: {} } }), false);
  });
});

Deno.test("a settings override that is a FIFO by the time the case runs is the case's error, not a wait", async () => {
  await withTempProject({}, async (project) => {
    // It was a settings file when the scenario was loaded; something swapped it since.
    const path = `${project.dir}/override.json`;
    await makeFifo(path);
    let thrown: unknown;
    try {
      await createHermeticPlace({
        projectDir: project.dir,
        placement: { settings: { kind: "file", path } },
        outerEnv: project.outerEnv,
      });
    } catch (error) {
      thrown = error;
    }
    assert(thrown instanceof AgentError, String(thrown));
    assertEquals(
      thrown.message,
      `Cannot read the settings override "${path}": it is a FIFO, not a regular file`,
    );
    assertEquals(await treeOf(`${project.dir}/../outer_cache/llama-agent/hooks-test`), []);
  });
});

Deno.test("no process a hook started outlives its case", async () => {
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      PreToolUse: [{ hooks: [command("./hooks/spawn.sh")] }],
    }),
    "hooks/spawn.sh": 'cat > /dev/null\nsleep 30 &\necho $! > "$CLAUDE_PROJECT_DIR/pid"\n',
  }, async (project) => {
    const result = await runEventCase(caseInput(
      project,
      EventCase.parse({
        name: "spawns",
        event: "PreToolUse",
        input: { tool_name: "shell" },
        expect: { errors: 0 },
      }),
    ));
    assertEquals(result.status, "passed");
    const pid = Number((await Deno.readTextFile(`${project.dir}/pid`)).trim());
    assertEquals(await livingPids([pid]), []);
  });
});

Deno.test("a hook's background child does not outlive its case", async () => {
  const seconds = `26.${Math.floor(Math.random() * 1e6)}`;
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      PreToolUse: [{ hooks: [command(`sleep ${seconds} >/dev/null 2>&1 </dev/null & exit 0`)] }],
    }),
  }, async (project) => {
    const spec = EventCase.parse({
      name: "detaches",
      event: "PreToolUse",
      input: { tool_name: "shell" },
      expect: { decision: "none" },
    });
    const result = await runEventCase(caseInput(project, spec));
    assertEquals(result.failures, []);
    assertEquals(await livingPidsMatching(`sleep ${seconds}`), []);
  });
});
