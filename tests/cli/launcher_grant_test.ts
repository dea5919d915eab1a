/**
 * What `bin/llama-agent` grants, through the real launcher: Deno splits `--allow-read` and
 * `--allow-write` lists at every comma and cannot escape one, so no path the launcher grants may
 * change the grant by its characters. The grant is observed the way a user meets it: `hooks init
 * --cwd DIR` reads DIR's settings and writes a suite into it, and is refused outside the grant.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { cliRunOf, LAUNCHER, REPO_ROOT, runCli } from "../helpers/run_cli.ts";

const SETTINGS = JSON.stringify({
  hooks: { PreToolUse: [{ matcher: "shell", hooks: [{ type: "command", command: "exit 0" }] }] },
});

/** A directory whose hooks `hooks init --cwd` writes a suite for: the observed write. */
async function project(dir: string): Promise<string> {
  await Deno.mkdir(`${dir}/.claude`, { recursive: true });
  await Deno.writeTextFile(`${dir}/.claude/settings.json`, SETTINGS);
  return dir;
}

async function written(dir: string): Promise<boolean> {
  return await Deno.stat(`${dir}/.claude/hooks-tests`).then(() => true, () => false);
}

async function inTemp(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "llama-agent-grant-" }));
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A stand-in for Deno that prints the arguments the launcher gives it, one a line. */
async function echoDeno(dir: string): Promise<string> {
  const path = `${dir}/echo_deno.sh`;
  await Deno.writeTextFile(path, '#!/bin/sh\nprintf "%s\\n" "$@"\n');
  await Deno.chmod(path, 0o755);
  return path;
}

function grantOf(stdout: string, flag: "--allow-read" | "--allow-write"): string | undefined {
  return stdout.split("\n").find((arg) => arg.startsWith(`${flag}=`))?.slice(flag.length + 1);
}

Deno.test("started in a directory named x/a,<victim>, the agent cannot write the victim directory", async () => {
  await inTemp(async (dir) => {
    const victim = await project(`${dir}/victim`);
    // The name Deno would split into "<dir>/x/a" and the victim directory.
    const launch = `${dir}/x/a,${victim}`;
    await Deno.mkdir(launch, { recursive: true });
    await Deno.mkdir(`${dir}/home`);
    const result = await runCli(["hooks", "init", "--cwd", victim], {
      cwd: launch,
      home: `${dir}/home`,
    });
    assertEquals(result.code, 2, result.stdout + result.stderr);
    assertStringIncludes(result.stderr, `Cannot read "${victim}"`);
    assertStringIncludes(result.stderr, `"${launch}" (where it was started)`);
    assert(!await written(victim), "nothing was written in the victim directory");
    // The launch directory itself, comma and all, is granted.
    await project(launch);
    const own = await runCli(["hooks", "init"], { cwd: launch, home: `${dir}/home` });
    assertEquals(own.code, 0, own.stderr);
    assert(await written(launch), "the suite is written in the launch directory");
  });
});

Deno.test("a $HOME with a comma is granted exactly when llama-agent starts inside it", async () => {
  await inTemp(async (dir) => {
    const home = `${dir}/ho,me`;
    const launch = `${home}/proj`;
    await Deno.mkdir(launch, { recursive: true });
    const inHome = await project(`${home}/other`);
    // What splitting "<dir>/ho,me" would have granted: "<dir>/ho" (and "me", in the launch dir).
    const sibling = await project(`${dir}/ho`);
    const init = (cwd: string) => runCli(["hooks", "init", "--cwd", cwd], { cwd: launch, home });
    const ok = await init(inHome);
    assertEquals(ok.code, 0, ok.stderr);
    assert(await written(inHome), "the suite is written under $HOME");
    for (const outside of [sibling, dir]) {
      const refused = await init(outside);
      assertEquals(refused.code, 2, refused.stdout + refused.stderr);
      assertStringIncludes(refused.stderr, `Cannot read "${outside}"`);
    }
    assert(!await written(sibling), "nothing was written beside $HOME");
  });
});

Deno.test("a $HOME with a comma, started outside it, is refused before Deno starts, saying what to do", async () => {
  await inTemp(async (dir) => {
    const home = `${dir}/ho,me`;
    await Deno.mkdir(home);
    await Deno.mkdir(`${dir}/proj`);
    const result = await runCli(["hooks", "list"], {
      cwd: `${dir}/proj`,
      home,
      env: { LLAMA_AGENT_DENO: await echoDeno(dir) },
    });
    assertEquals(result.code, 1);
    assertEquals(result.stdout, "", "Deno was not started");
    assertEquals(
      result.stderr,
      `llama-agent: cannot grant your home directory (HOME) "${home}": Deno reads a comma in a ` +
        "permission path as a separator and cannot escape one; set HOME to a path without a " +
        "comma, or start llama-agent from a directory inside it\n",
    );
  });
});

Deno.test("the launch directory is granted as '.', other paths as they are, whatever their characters", async () => {
  await inTemp(async (dir) => {
    // Spaces, "=", a newline and a leading "-" in a name: Deno takes them literally.
    const home = `${dir}/h ome=x\n-y`;
    const launch = `${dir}/a,b`;
    await Deno.mkdir(home);
    await Deno.mkdir(launch);
    const echo = await runCli(["hooks", "list"], {
      cwd: launch,
      home,
      env: { LLAMA_AGENT_DENO: await echoDeno(dir), XDG_CONFIG_HOME: `${dir}/c=f g` },
    });
    assertEquals(echo.code, 0, echo.stderr);
    // printf prints one argument a line: the newline in HOME splits it in two here.
    assertStringIncludes(echo.stdout, `--allow-write=.,${home}\n`);
    assertStringIncludes(
      echo.stdout,
      `--allow-read=.,${home},${REPO_ROOT},${dir}/c=f g/llama-agent,`,
    );
    // And Deno grants that home exactly: a suite is written there.
    const inHome = await project(`${home}/p`);
    const real = await runCli(["hooks", "init", "--cwd", inHome], { cwd: launch, home });
    assertEquals(real.code, 0, real.stderr);
    assert(await written(inHome));
  });
});

Deno.test("a comma shared by the launch directory and the config directory is granted relatively", async () => {
  await inTemp(async (dir) => {
    const launch = `${dir}/a,b/proj/sub`;
    await Deno.mkdir(launch, { recursive: true });
    const result = await runCli(["hooks", "list"], {
      cwd: launch,
      home: `${dir}/a,b`,
      env: { LLAMA_AGENT_DENO: await echoDeno(dir), XDG_CONFIG_HOME: `${dir}/a,b/cfg` },
    });
    assertEquals(result.code, 0, result.stderr);
    assertEquals(grantOf(result.stdout, "--allow-write"), ".,./../..");
    assert(
      grantOf(result.stdout, "--allow-read")!.startsWith(
        `.,./../..,${REPO_ROOT},./../../cfg/llama-agent,`,
      ),
      result.stdout,
    );
  });
});

Deno.test("an XDG_CONFIG_HOME or install directory with a comma is refused, naming it and what to do", async () => {
  await inTemp(async (dir) => {
    const echo = await echoDeno(dir);
    await Deno.mkdir(`${dir}/home`);
    const config = await runCli(["hooks", "list"], {
      cwd: `${dir}/home`,
      home: `${dir}/home`,
      env: { LLAMA_AGENT_DENO: echo, XDG_CONFIG_HOME: `${dir}/x,y` },
    });
    assertEquals(config.code, 1);
    assertEquals(config.stdout, "");
    assertStringIncludes(
      config.stderr,
      `cannot grant the config directory (XDG_CONFIG_HOME) "${dir}/x,y/llama-agent"`,
    );
    assertStringIncludes(config.stderr, "set XDG_CONFIG_HOME to a path without a comma");

    // The launcher takes its install directory from where it lies.
    await Deno.mkdir(`${dir}/in,st/bin`, { recursive: true });
    await Deno.copyFile(LAUNCHER, `${dir}/in,st/bin/llama-agent`);
    const install = cliRunOf(
      await new Deno.Command(`${dir}/in,st/bin/llama-agent`, {
        args: ["--version"],
        cwd: `${dir}/home`,
        clearEnv: true,
        env: { PATH: "/usr/bin:/bin", HOME: `${dir}/home`, LLAMA_AGENT_DENO: echo },
        stdout: "piped",
        stderr: "piped",
      }).output(),
    );
    assertEquals(install.code, 1);
    assertEquals(install.stdout, "");
    assertStringIncludes(install.stderr, `cannot grant the install directory "${dir}/in,st"`);
    assertStringIncludes(install.stderr, "move llama-agent to a directory whose path has no comma");
  });
});

Deno.test("a relative $HOME is not granted and is refused at start; --version still answers", async () => {
  await inTemp(async (dir) => {
    const echo = await runCli(["hooks", "list"], {
      cwd: dir,
      home: "..",
      env: { LLAMA_AGENT_DENO: await echoDeno(dir) },
    });
    assertEquals(grantOf(echo.stdout, "--allow-write"), ".");
    const refused = await runCli(["hooks", "list"], { cwd: dir, home: ".." });
    assertEquals(refused.code, 1);
    assertEquals(
      refused.stderr,
      'llama-agent: HOME is "..", a relative path: set it to the absolute path of your home ' +
        "directory\n",
    );
    const version = await runCli(["--version"], { cwd: dir, home: ".." });
    assertEquals(version.code, 0, version.stderr);
  });
});

Deno.test("a $HOME or launch directory that is not UTF-8 is refused at start, saying which", async () => {
  await inTemp(async (dir) => {
    // Deno would grant such a path with U+FFFD in place of the bad byte: another directory.
    const run = async (script: string) =>
      cliRunOf(
        await new Deno.Command("/bin/sh", {
          args: ["-c", script, "sh", dir, LAUNCHER],
          cwd: dir,
          clearEnv: true,
          env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", LANG: "C.UTF-8", NO_COLOR: "1" },
          stdout: "piped",
          stderr: "piped",
        }).output(),
      );
    const home = await run(
      'export HOME="$(printf "%s/bad\\377" "$1")" && mkdir "$HOME" && exec "$2" hooks list',
    );
    assertEquals(home.code, 1, home.stderr);
    assertStringIncludes(home.stderr, "llama-agent: HOME is not valid UTF-8");
    const launch = await run(
      'export HOME="$1" && d="$(printf "%s/bad\\376" "$1")" && mkdir "$d" && cd "$d" && ' +
        'exec "$2" hooks list',
    );
    assertEquals(launch.code, 1, launch.stderr);
    assertStringIncludes(
      launch.stderr,
      "llama-agent: the path of the directory llama-agent is started in is not valid UTF-8",
    );
  });
});

Deno.test("a Deno that did not grant $HOME is named under the launcher, not 'this llama-agent binary'", async () => {
  await inTemp(async (dir) => {
    // A Deno that drops the launcher's home grant, as one parsing the lists otherwise could.
    const wrapper = `${dir}/narrow_deno.sh`;
    await Deno.writeTextFile(
      wrapper,
      `#!/bin/sh
for arg; do
  shift
  case $arg in
    --allow-read=*) arg=--allow-read=.,${REPO_ROOT} ;;
    --allow-write=*) arg=--allow-write=. ;;
  esac
  set -- "$@" "$arg"
done
exec "${REPO_ROOT}/node_modules/deno/deno" "$@"
`,
    );
    await Deno.chmod(wrapper, 0o755);
    await Deno.mkdir(`${dir}/home`);
    await Deno.mkdir(`${dir}/proj`);
    const result = await runCli(["hooks", "list"], {
      cwd: `${dir}/proj`,
      home: `${dir}/home`,
      env: { LLAMA_AGENT_DENO: wrapper },
    });
    assertEquals(result.code, 1);
    assertStringIncludes(
      result.stderr,
      `cannot read and write your home directory "${dir}/home": "${REPO_ROOT}/bin/llama-agent" ` +
        "asked Deno for exactly this directory and Deno did not grant it",
    );
    assert(!result.stderr.includes("this llama-agent binary"), result.stderr);
  });
});
