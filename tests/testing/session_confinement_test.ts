/**
 * A hook tester exists for the day a guard is broken. These cases script a model that tries to
 * destroy the project and write outside it while the guard that should stop it never fires
 * (its matcher names Claude Code's "Bash", which llama-agent's "shell" never matches), and then
 * prove that nothing outside the case's own temporary place changed: not the project, not its
 * parent, not the user's HOME, whether the shell is answered (the default) or really executed.
 * The directory around the project is a git repository, as a HOME kept in git is: git run in the
 * copy must not find it.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { runSessionCase } from "../../src/testing/runner/session_case_runner.ts";
import { SessionCase } from "../../src/testing/scenarios/scenario_schema.ts";
import { caseInput, command, hooksSettings, withTempProject } from "./scenario_project.ts";

/** Every entry under `dir`, relative, with what it holds: to prove a run changed nothing. */
async function snapshot(dir: string, skip: readonly string[] = []): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (path: string, prefix: string) => {
    for await (const entry of Deno.readDir(path)) {
      const rel = `${prefix}${entry.name}`;
      if (skip.includes(rel)) continue;
      const full = `${path}/${entry.name}`;
      if (entry.isSymlink) out.set(rel, `-> ${await Deno.readLink(full)}`);
      else if (entry.isDirectory) {
        out.set(rel, "<dir>");
        await walk(full, `${rel}/`);
      } else out.set(rel, await Deno.readTextFile(full));
    }
  };
  await walk(dir, "");
  return out;
}

/** Makes `dir` a git repository with everything in it committed, when git is installed. */
async function commitAll(dir: string): Promise<void> {
  const git = async (...args: string[]) => {
    const output = await new Deno.Command("git", {
      args: ["-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", ...args],
      env: { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
      stdout: "null",
      stderr: "null",
    }).output();
    assert(output.success, `git ${args.join(" ")} failed`);
  };
  try {
    await git("init", "-q");
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  await git("add", "-A");
  await git("commit", "-qm", "all");
}

const BROKEN_GUARD = {
  ".claude/settings.json": hooksSettings({
    // The usual mistake: Claude Code's tool name, so the guard never fires on "shell".
    PreToolUse: [{ matcher: "Bash", hooks: [command("./hooks/guard.sh")] }],
  }),
  "hooks/guard.sh": "echo 'BLOCKED' >&2\nexit 2\n",
  "victim/keep.txt": "precious\n",
};

/** A model that does everything a broken guard should have stopped, by every door it has. */
function destructiveTurns(outside: string, project: string) {
  const shell = (commandLine: string) => ({ name: "shell", input: { command: commandLine } });
  const write = (path: string) => ({ name: "fs_write", input: { file_path: path, content: "x" } });
  return [
    { toolCalls: [shell("rm -rf victim")] },
    { toolCalls: [write("../outside.txt")] },
    { toolCalls: [write(`${outside}/absolute.txt`)] },
    { toolCalls: [write("escape/through-a-link.txt")] },
    { toolCalls: [write("back-in/through-a-link.txt")] },
    { toolCalls: [write("~/in-home.txt")] },
    { toolCalls: [write(`${project}/victim/keep.txt`)] },
    {
      toolCalls: [
        shell(
          "echo x > ../outside-shell.txt; touch ~/home-touched; rm -rf back-in/*; " +
            "rm -rf climb-back-in/*; git rm -rqf :/ 2>/dev/null; echo done-all",
        ),
      ],
    },
    { text: "Done." },
  ];
}

const VARIANTS: readonly { readonly label: string; readonly session: Record<string, unknown> }[] = [
  { label: "no options", session: {} },
  { label: "execute: true", session: { execute: true } },
  { label: "client fs and terminal", session: { client: { fs: true, terminal: true } } },
  {
    label: "execute: true, client fs and terminal",
    session: { execute: true, client: { fs: true, terminal: true } },
  },
];

for (const variant of VARIANTS) {
  Deno.test(`a broken guard's session case changes nothing outside its own place (${variant.label})`, async () => {
    await withTempProject(BROKEN_GUARD, async (project) => {
      const root = project.dir.slice(0, project.dir.lastIndexOf("/"));
      const outside = `${root}/outside`;
      await Deno.mkdir(outside);
      await Deno.writeTextFile(`${outside}/mine.txt`, "mine\n");
      // Links in the project that lead out of it, and back into it by an absolute path.
      await Deno.symlink(outside, `${project.dir}/escape`);
      await Deno.symlink(`${project.dir}/victim`, `${project.dir}/back-in`);
      // Up to "/" and down again: relative, yet it leads into the project from anywhere.
      const climb = `${"../".repeat(40)}${project.dir.slice(1)}/victim`;
      await Deno.symlink(climb, `${project.dir}/climb-back-in`);
      await commitAll(root);
      // The scratch space holds the case's place while it runs, and nothing once it is over.
      const before = await snapshot(root, ["outer_cache"]);

      const executes = variant.session["execute"] === true;
      const spec = SessionCase.parse({
        name: "the guard is broken",
        session: {
          model: { turns: destructiveTurns(outside, project.dir) },
          prompts: ["clean up"],
          ...variant.session,
        },
        expect: {
          tools: [
            { name: "shell", dispatched: true, status: "completed" },
            // Outside the copy and its HOME, the only allowed roots: refused.
            { name: "fs_write", status: "failed" },
            { name: "fs_write", status: "failed" },
            { name: "fs_write", status: "failed" },
            // Inside the copy (the link was made to point into it), or under a "~" there.
            { name: "fs_write" },
            { name: "fs_write" },
            // The project itself, by its absolute path: refused.
            { name: "fs_write", status: "failed" },
            { name: "shell", dispatched: true, status: "completed" },
          ],
          modelSaw: executes ? ["done-all"] : [],
          // Relative to the copy: the commands ran there, or were only answered.
          files: {
            "victim/keep.txt": executes ? null : "precious\n",
            "../outside-shell.txt": executes ? "x\n" : null,
          },
        },
      });
      // A file-level "isolate": false is for event cases: it must not reach a session case.
      const result = await runSessionCase(
        caseInput(project, spec, { placement: { isolate: false } }),
      );

      assertEquals(
        result.status,
        "passed",
        `${result.error ?? ""}${JSON.stringify(result.failures)}`,
      );
      assertEquals(await snapshot(root, ["outer_cache"]), before);
      assertEquals(
        await snapshot(`${root}/outer_cache`),
        new Map([
          ["llama-agent", "<dir>"],
          ["llama-agent/hooks-test", "<dir>"],
        ]),
      );
      assertEquals(
        result.shellCalls?.map((call) => [call.command.split(" ")[0], call.executed]),
        [["rm", executes], ["echo", executes]],
      );
    });
  });
}

Deno.test('a session case with "isolate": false is refused: session cases always run in a copy', () => {
  const parsed = SessionCase.safeParse({
    name: "in place",
    isolate: false,
    session: { model: { turns: [] }, prompts: ["hi"] },
    expect: { stopReason: "end_turn" },
  });
  assert(!parsed.success);
  assertEquals(parsed.error.issues.map((issue) => issue.path), [["isolate"]]);
});

Deno.test("expect.files naming a path that climbs out of the case's place is an error, not a pass", async () => {
  await withTempProject({ "victim/keep.txt": "keep\n" }, async (project) => {
    // The project's own file, reached from the copy by climbing: `null` would pass there only
    // because the copy lies elsewhere, whatever the session did.
    const climb = `${"../".repeat(12)}${project.dir.slice(1)}/victim/gone.txt`;
    const spec = SessionCase.parse({
      name: "climbs out",
      session: { model: { turns: [{ text: "hi" }] }, prompts: ["hi"] },
      expect: { files: { [climb]: null } },
    });
    const result = await runSessionCase(caseInput(project, spec));
    assertEquals(result.status, "error");
    assert(
      result.error?.includes("it lies outside the case's place, so the session never touched it"),
      result.error ?? "",
    );
  });
});
