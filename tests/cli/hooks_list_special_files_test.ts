/**
 * `hooks list` and `hooks lint` on settings files that are not small regular files, through the
 * real launcher: each such file is a problem naming it and why, the rest of the chain is listed,
 * and the command ends by itself with little memory. Runs are watched (killed past a deadline or
 * a memory ceiling), since the failure being tested is a read that never ends.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { withTempProject } from "../helpers/run_cli.ts";
import { runCliWatched, type WatchedRun } from "../helpers/watched_cli.ts";
import { linkToDevZero, makeFifo, withSocketMaker, writeSpaces } from "../hooks/special_files.ts";

const FOUR_MIB = 4 * 1024 * 1024;
const MEMORY_CEILING = 768 * 1024 ** 2;

const USER_STOP = JSON.stringify({
  hooks: { Stop: [{ hooks: [{ type: "command", command: "./user-stop.sh" }] }] },
});
const LOCAL_STOP = JSON.stringify({
  hooks: { Stop: [{ hooks: [{ type: "command", command: "./local-stop.sh" }] }] },
});

interface Dirs {
  readonly home: string;
  readonly project: string;
}

/**
 * A HOME and a project whose user and local files each hold one Stop hook, and whose project
 * `.claude/settings.json` is made by `make`.
 */
function withSpecialProjectFile(
  make: (path: string) => Promise<void> | void,
  fn: (dirs: Dirs) => Promise<void>,
): Promise<void> {
  return withTempProject({
    "home/.claude/settings.json": USER_STOP,
    "project/.claude/settings.local.json": LOCAL_STOP,
  }, async (root) => {
    const dirs = { home: `${root}/home`, project: `${root}/project` };
    await make(`${dirs.project}/.claude/settings.json`);
    await fn(dirs);
  });
}

function run(dirs: Dirs, args: readonly string[]): Promise<WatchedRun> {
  return runCliWatched(args, {
    cwd: dirs.project,
    home: dirs.home,
    deadlineMs: 30_000,
    maxRssBytes: MEMORY_CEILING,
  });
}

function assertEndedByItself(result: WatchedRun): void {
  assert(
    result.killed === undefined,
    `The command was killed: ${result.killed} (peak ${result.peakRssBytes} bytes)\n` +
      `stdout: ${result.stdout}\nstderr: ${result.stderr}`,
  );
}

/** The table says the file is unreadable and why, and still lists the other files' hooks. */
async function assertListed(dirs: Dirs, reason: string): Promise<void> {
  const result = await run(dirs, ["hooks", "list"]);
  assertEndedByItself(result);
  assertEquals([result.code, result.stderr], [0, ""]);
  const lines = result.stdout.split("\n");
  assert(
    lines.some((line) => /^ {2}project\s+\.claude\/settings\.json\s+unreadable$/.test(line)),
    result.stdout,
  );
  assert(lines.some((line) => line.includes("./user-stop.sh")), result.stdout);
  assert(lines.some((line) => line.includes("./local-stop.sh")), result.stdout);
  assertStringIncludes(result.stdout, "\n2 hooks (2 fire here), 1 error, 0 warnings\n");
  assertStringIncludes(
    result.stdout,
    `\nProblems:\n  .claude/settings.json: error: Cannot read settings file: ${reason} ` +
      `[SETTINGS_UNREADABLE]\n`,
  );
}

Deno.test("hooks list: a settings file linked to /dev/zero is a problem, read no further", async () => {
  await withSpecialProjectFile(linkToDevZero, async (dirs) => {
    await assertListed(dirs, "it is a character device, not a regular file");
  });
});

Deno.test("hooks list: a settings file that is a FIFO is a problem, and the command ends", async () => {
  await withSpecialProjectFile(makeFifo, async (dirs) => {
    await assertListed(dirs, "it is a FIFO, not a regular file");
  });
});

Deno.test("hooks list: a settings file over 4 MiB is a problem naming the limit", async () => {
  await withSpecialProjectFile((path) => writeSpaces(path, FOUR_MIB + 1), async (dirs) => {
    await assertListed(dirs, `it is over the 4 MiB limit (${FOUR_MIB + 1} bytes)`);
  });
});

Deno.test("hooks list: a settings file that is a socket is a problem", async () => {
  await withSocketMaker((makeSocket) =>
    withSpecialProjectFile(makeSocket, async (dirs) => {
      await assertListed(dirs, "it is a socket, not a regular file");
    })
  );
});

Deno.test("hooks list --json: the refused file is unreadable, with a diagnostic naming it", async () => {
  await withSpecialProjectFile(linkToDevZero, async (dirs) => {
    const result = await run(dirs, ["hooks", "list", "--json"]);
    assertEndedByItself(result);
    assertEquals([result.code, result.stderr], [0, ""]);
    const json = JSON.parse(result.stdout);
    assertEquals(json.files.map((f: { status: string }) => f.status), [
      "loaded",
      "unreadable",
      "loaded",
    ]);
    assertEquals(json.diagnostics, [{
      code: "SETTINGS_UNREADABLE",
      severity: "error",
      file: `${dirs.project}/.claude/settings.json`,
      pointer: "",
      message: "Cannot read settings file: it is a character device, not a regular file",
    }]);
  });
});

Deno.test("hooks lint: a settings file that is a FIFO is an error, and the command ends", async () => {
  await withSpecialProjectFile(makeFifo, async (dirs) => {
    const result = await run(dirs, ["hooks", "lint"]);
    assertEndedByItself(result);
    assertEquals([result.code, result.stderr], [1, ""]);
    assertStringIncludes(
      result.stdout,
      ".claude/settings.json: error: Cannot read settings file: it is a FIFO, not a regular file " +
        "[SETTINGS_UNREADABLE]\n",
    );
  });
});
