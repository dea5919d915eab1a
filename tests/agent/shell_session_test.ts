/**
 * A session's shell over the real local runner: Claude Code's Bash semantics in the claude
 * profile (bash where there is one, a `cd` that carries over within the session's directories),
 * the source document's `sh -c` in the session directory in the llama profile.
 */
import { assert, assertEquals, assertLess } from "../helpers/assert.ts";
import { ClientShellRunner } from "../../src/agent/shell/client_shell_runner.ts";
import { LocalShellRunner } from "../../src/agent/shell/local_shell_runner.ts";
import { commandOfScript } from "../../src/agent/shell/shell_script.ts";
import { SH, shellProgram } from "../../src/agent/shell/shell_program.ts";
import { ShellSession, shellStyleUnder } from "../../src/agent/shell/shell_session.ts";
import type { ShellRunner, ShellRunResult } from "../../src/agent/shell/shell_runner.ts";
import { WorkingDirectory } from "../../src/agent/shell/working_directory.ts";
import {
  CLAUDE_SHELL_STYLE,
  LLAMA_SHELL_STYLE,
  type ShellStyle,
} from "../../src/profile/shell_style.ts";
import { livingPids, readPidFile } from "../hooks/process_probe.ts";
import { fakeClient } from "./fake_client.ts";
import { withTempDir } from "./temp_dir.ts";

const ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" };
const BASH = await shellProgram("bash", ENV);
const HAS_BASH = BASH !== SH;
const TREE = { "proj/sub/.keep": "", "extra/.keep": "", "elsewhere/.keep": "" };

interface Setup {
  readonly dir: string;
  readonly wd: WorkingDirectory;
  readonly logs: string[];
  run(command: string, options?: { signal?: AbortSignal }): Promise<ShellRunResult>;
}

function session(
  dir: string,
  style: ShellStyle,
  options: { runner?: ShellRunner; reportDir?: string } = {},
): Setup {
  const wd = new WorkingDirectory(`${dir}/proj`, [`${dir}/extra`]);
  const logs: string[] = [];
  const shell = new ShellSession(options.runner ?? new LocalShellRunner({ env: ENV }), {
    style,
    directory: wd,
    reportDir: options.reportDir ?? `${dir}/state/shell`,
    program: (choice) => shellProgram(choice, ENV),
    log: (line) => logs.push(line),
  });
  return {
    dir,
    wd,
    logs,
    run: (command, { signal } = {}) =>
      shell.run({ command, cwd: wd.current, timeoutMs: 10_000, ...(signal ? { signal } : {}) }),
  };
}

function output(result: ShellRunResult): string {
  assert(result.kind === "exited", JSON.stringify(result));
  return result.output;
}

async function reportsLeft(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(`${dir}/state/shell`)) names.push(entry.name);
  return names;
}

Deno.test("claude: a cd carries over to the next command, as in Claude Code", async () => {
  await withTempDir(TREE, async (dir) => {
    const s = session(dir, CLAUDE_SHELL_STYLE);
    assertEquals(output(await s.run("cd sub")), "");
    assertEquals(s.wd.current, `${dir}/proj/sub`);
    assertEquals(output(await s.run("pwd")), `${dir}/proj/sub\n`);
    // An additional directory of the session is inside too.
    await s.run(`cd ${dir}/extra`);
    assertEquals(output(await s.run("pwd")), `${dir}/extra\n`);
    // Nothing is left behind for a call, and nothing said.
    assertEquals(await reportsLeft(dir), []);
    assertEquals(s.logs, []);
  });
});

Deno.test("claude: only the directory carries over: variables end with their command", async () => {
  await withTempDir(TREE, async (dir) => {
    const s = session(dir, CLAUDE_SHELL_STYLE);
    await s.run("export LEFT=1; cd sub");
    assertEquals(output(await s.run('echo "[$LEFT]"; pwd')), `[]\n${dir}/proj/sub\n`);
  });
});

Deno.test("claude: a command that fails leaves the directory as it was, as in Claude Code", async () => {
  await withTempDir(TREE, async (dir) => {
    const s = session(dir, CLAUDE_SHELL_STYLE);
    const failed = await s.run("cd sub && false");
    assert(failed.kind === "exited" && failed.exitCode === 1);
    assertEquals(s.wd.current, `${dir}/proj`);
    assertEquals(output(await s.run("cd sub; exit 0")), "", "exit 0 before the report: no report");
    assertEquals(s.wd.current, `${dir}/proj`);
  });
});

Deno.test("claude: a cd out of the session's directories is reset, and the result says where to", async () => {
  await withTempDir(TREE, async (dir) => {
    const s = session(dir, CLAUDE_SHELL_STYLE);
    await s.run("cd sub");
    const result = await s.run(`cd ${dir}/elsewhere && echo moved`);
    assert(result.kind === "exited", JSON.stringify(result));
    assertEquals([result.output, result.cwdReset], ["moved\n", `${dir}/proj`]);
    assertEquals(s.wd.current, `${dir}/proj`);
    assertEquals(output(await s.run("pwd")), `${dir}/proj\n`);
    // Staying inside says nothing.
    const inside = await s.run("cd sub");
    assert(inside.kind === "exited" && inside.cwdReset === undefined);
  });
});

Deno.test({
  name: "claude: the shell is bash where there is one: [[ ]] works",
  ignore: !HAS_BASH,
  fn: async () => {
    await withTempDir(TREE, async (dir) => {
      const s = session(dir, CLAUDE_SHELL_STYLE);
      assertEquals(output(await s.run("[[ abc == a* ]] && echo matched")), "matched\n");
    });
  },
});

Deno.test({
  name: "claude: a missing command is bash's own 127 line, `<bash>: line 1: …`",
  ignore: !HAS_BASH,
  fn: async () => {
    await withTempDir(TREE, async (dir) => {
      const result = await session(dir, CLAUDE_SHELL_STYLE).run("no-such-command-here");
      assert(result.kind === "exited");
      assertEquals(result.exitCode, 127);
      assertEquals(result.output, `${BASH}: line 1: no-such-command-here: command not found\n`);
    });
  },
});

Deno.test("claude: a cancel mid-command kills it, keeps the directory and leaves no report", async () => {
  await withTempDir(TREE, async (dir) => {
    const s = session(dir, CLAUDE_SHELL_STYLE);
    const controller = new AbortController();
    const pidFile = `${dir}/pids`;
    const running = s.run(`cd sub && sleep 30 & echo "$!" > ${pidFile}; cd sub && wait`, {
      signal: controller.signal,
    });
    const pids = await readPidFile(pidFile);
    const aborted = performance.now();
    controller.abort();
    const result = await running;
    assertLess(performance.now() - aborted, 1000);
    assertEquals(result.kind, "cancelled");
    assertEquals(s.wd.current, `${dir}/proj`);
    assertEquals(await livingPids(pids), []);
    assertEquals(await reportsLeft(dir), []);
  });
});

Deno.test("llama: /bin/sh -c in the session's directory every time, as its contract says", async () => {
  await withTempDir(TREE, async (dir) => {
    const s = session(dir, LLAMA_SHELL_STYLE);
    await s.run("cd sub");
    assertEquals(s.wd.current, `${dir}/proj`);
    assertEquals(output(await s.run("pwd")), `${dir}/proj\n`);
    // No report directory is ever made.
    assertEquals(await Deno.stat(`${dir}/state`).then(() => true, () => false), false);
    const result = await s.run("[[ 1 == 1 ]]");
    assert(result.kind === "exited" && result.exitCode === 127, JSON.stringify(result));
    assert(result.output.startsWith("/bin/sh: "), result.output);
  });
});

Deno.test("claude: where no report can be made, commands run in the session's directory and it is said once", async () => {
  await withTempDir({ ...TREE, "state": "a file, not a directory" }, async (dir) => {
    const s = session(dir, CLAUDE_SHELL_STYLE);
    assertEquals(output(await s.run("cd sub; echo ran")), "ran\n");
    assertEquals(output(await s.run("pwd")), `${dir}/proj\n`);
    assertEquals(s.logs.length, 1, s.logs.join("\n"));
    assert(s.logs[0]!.startsWith(`Cannot follow the shell's directory: cannot create "`));
  });
});

Deno.test("claude: a report the command wrote over with something else changes nothing", async () => {
  await withTempDir(TREE, async (dir) => {
    // The runner stands for a command that found its report file and wrote into it.
    const local = new LocalShellRunner({ env: ENV });
    const s = session(dir, CLAUDE_SHELL_STYLE, {
      runner: {
        run: async (request) => {
          const result = await local.run(request);
          await Deno.writeTextFile(request.directoryReport!, "not a path\n");
          return result;
        },
      },
    });
    await s.run("cd sub");
    assertEquals(s.wd.current, `${dir}/proj`);
  });
});

Deno.test("claude: in a client's terminal the command is the same script, and its cd carries over the same way", async () => {
  await withTempDir(TREE, async (dir) => {
    const created: Record<string, unknown>[] = [];
    let running: Promise<Deno.CommandOutput> | undefined;
    // A client whose terminal runs on this machine, as an editor's does.
    const client = fakeClient({
      "terminal/create": (params) => {
        created.push(params);
        running = new Deno.Command(params.command as string, {
          args: params.args as string[],
          cwd: params.cwd as string,
          env: ENV,
          clearEnv: true,
        }).output();
        return { terminalId: "term-1" };
      },
      "terminal/wait_for_exit": async () => ({ exitCode: (await running!).code, signal: null }),
      "terminal/output": async () => ({
        output: new TextDecoder().decode((await running!).stdout),
        truncated: false,
      }),
      "terminal/release": () => null,
    });
    const s = session(dir, CLAUDE_SHELL_STYLE, {
      runner: new ClientShellRunner({ sessionId: "s1", request: client.request }),
    });
    assertEquals(output(await s.run("cd sub")), "");
    assertEquals(output(await s.run("pwd")), `${dir}/proj/sub\n`);
    const [first, second] = created;
    assertEquals(first!.command, BASH);
    const args = first!.args as string[];
    assertEquals([args[0], commandOfScript(args[1]!)], ["-c", "cd sub"]);
    assertEquals([first!.cwd, second!.cwd], [`${dir}/proj`, `${dir}/proj/sub`]);
    assertEquals(await reportsLeft(dir), []);
  });
});

Deno.test("claude: CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR starts every command in the session's directory, as in Claude Code", async () => {
  const env = (value: string) => (name: string) =>
    name === "CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR" ? value : undefined;
  assertEquals(shellStyleUnder(CLAUDE_SHELL_STYLE, env("1")).keepsDirectory, false);
  assertEquals(shellStyleUnder(CLAUDE_SHELL_STYLE, env("true")).keepsDirectory, false);
  assertEquals(shellStyleUnder(CLAUDE_SHELL_STYLE, env("0")), CLAUDE_SHELL_STYLE);
  assertEquals(shellStyleUnder(CLAUDE_SHELL_STYLE, () => undefined), CLAUDE_SHELL_STYLE);
  await withTempDir(TREE, async (dir) => {
    const s = session(dir, shellStyleUnder(CLAUDE_SHELL_STYLE, env("1")));
    const moved = await s.run(`cd ${dir}/elsewhere`);
    assert(moved.kind === "exited" && moved.cwdReset === undefined, "no notice: nothing moved");
    await s.run("cd sub");
    assertEquals(output(await s.run("pwd")), `${dir}/proj\n`);
    // Still the profile's shell.
    assertEquals(output(await s.run("echo $0")), `${BASH}\n`);
  });
});
