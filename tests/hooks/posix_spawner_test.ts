import { chooseSpawnPath, describeSpawnPath } from "../../src/os/process/spawn_path.ts";
import {
  assert,
  assertEquals,
  assertMatch,
  assertRejectsWith,
  assertStringIncludes,
  assertThrows,
} from "../helpers/assert.ts";
import { waitUntil } from "../helpers/wait_until.ts";
import {
  noSpawner as ignore,
  openDescriptors,
  outputOf,
  spawn,
  spawner,
} from "./posix_spawner_fixtures.ts";

Deno.test({
  name: "a posix_spawn child leads its own session and process group from its first instruction",
  ignore,
  async fn() {
    // Fields 5 and 6 of /proc/PID/stat: the process group and the session.
    const { stdout } = await outputOf(spawn('read -r l < /proc/$$/stat; echo "$$ $l"'));
    const [pid, , , , , group, session] = stdout.trim().split(" ");
    assertEquals(group, pid);
    assertEquals(session, pid);
  },
});

Deno.test({
  name:
    "the child gets exactly the given environment and cwd, an empty signal mask and SIGPIPE at its default",
  ignore,
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir());
    try {
      const child = spawner!.spawn(
        { program: "/usr/bin/env", args: [] },
        { cwd: dir, env: { ONLY: "this one" }, stdin: "null" },
      );
      assertEquals((await outputOf(child)).stdout, "ONLY=this one\n");
      const status = await outputOf(
        spawn("pwd; grep -E '^Sig(Blk|Ign)' /proc/self/status", { cwd: dir }),
      );
      const [cwd, blocked, ignored] = status.stdout.trim().split("\n");
      assertEquals(cwd, dir);
      assertEquals(blocked, "SigBlk:\t0000000000000000");
      // The agent ignores SIGPIPE (bit 13); a child must not. glibc's own two may stay.
      assert((BigInt(`0x${ignored!.split("\t")[1]}`) & (1n << 12n)) === 0n, ignored);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "a bare program name is found on the child's PATH, not the agent's",
  ignore,
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir());
    try {
      await Deno.writeTextFile(`${dir}/only-here`, "#!/bin/sh\necho found in $0\n", {
        mode: 0o755,
      });
      await Deno.writeTextFile(`${dir}/no-shebang`, "echo run by the shell\n", { mode: 0o755 });
      const found = spawner!.spawn(
        { program: "only-here", args: [] },
        { cwd: "/", env: { PATH: `/nonexistent:${dir}` }, stdin: "null" },
      );
      assertEquals((await outputOf(found)).stdout, `found in ${dir}/only-here\n`);
      // execvp hands a file without #! to /bin/sh: so does the spawner.
      const script = spawner!.spawn(
        { program: "no-shebang", args: [] },
        { cwd: "/", env: { PATH: dir }, stdin: "null" },
      );
      assertEquals((await outputOf(script)).stdout, "run by the shell\n");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "a missing program, a file that may not run and a missing cwd throw what Deno.Command throws",
  ignore,
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir());
    try {
      await Deno.writeTextFile(`${dir}/not-executable`, "#!/bin/sh\n", { mode: 0o644 });
      const run = (program: string, cwd = "/") => () =>
        Promise.resolve().then(() =>
          spawner!.spawn({ program, args: [] }, { cwd, env: { PATH: dir }, stdin: "null" })
        );
      const missing = await assertRejectsWith(run("/nonexistent/program"), Deno.errors.NotFound);
      assertEquals(missing.message, "No such file or directory");
      assertEquals(
        (await assertRejectsWith(run("not-on-path"), Deno.errors.NotFound)).message,
        "No such file or directory",
      );
      const denied = await assertRejectsWith(
        run(`${dir}/not-executable`),
        Deno.errors.PermissionDenied,
      );
      assertEquals(denied.message, "Permission denied");
      // Found on PATH but not executable: execvp's EACCES, not "not found".
      await assertRejectsWith(run("not-executable"), Deno.errors.PermissionDenied);
      const noCwd = await assertRejectsWith(run("/bin/sh", `${dir}/gone`), Deno.errors.NotFound);
      assertStringIncludes(noCwd.message, `No working directory "${dir}/gone"`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "exit codes and deaths by signal read as Deno.Command reports them",
  ignore,
  async fn() {
    for (
      const script of [
        "exit 0",
        "exit 3",
        "exit 255",
        "kill -9 $$",
        "kill -TERM $$",
        "kill -USR1 $$",
      ]
    ) {
      const ours = (await outputOf(spawn(script))).status;
      const denos = await new Deno.Command("/bin/sh", { args: ["-c", script] }).output();
      assertEquals(
        { ...ours },
        { success: denos.success, code: denos.code, signal: denos.signal },
        script,
      );
    }
  },
});

Deno.test({
  name: "a SIGKILL to the group right after the spawn ends the child",
  ignore,
  async fn() {
    const child = spawn("sleep 30");
    Deno.kill(-child.pid, "SIGKILL");
    const { status } = await outputOf(child);
    assertEquals(status.signal, "SIGKILL");
    await assertRejectsWith(() => Promise.resolve().then(() => child.kill()), TypeError);
  },
});

Deno.test({
  name: "4 MiB through stdin arrive whole and in order while stdout floods back",
  ignore,
  async fn() {
    const bytes = new Uint8Array(4 * 1024 * 1024).map((_, index) => (index * 7) % 251);
    const child = spawn("cat; cat /dev/zero | head -c 3000000 >&2", { stdin: "piped" });
    const writing = (async () => {
      const writer = child.stdin.getWriter();
      await writer.write(bytes);
      await writer.close();
    })();
    const [status, stdout, stderr] = await Promise.all([
      child.status,
      new Response(child.stdout).arrayBuffer(),
      new Response(child.stderr).arrayBuffer(),
      writing,
    ]);
    assertEquals(status.code, 0);
    assertEquals(stderr.byteLength, 3_000_000);
    assertEquals(new Uint8Array(stdout), bytes);
  },
});

Deno.test({
  name:
    "writing to a child that closed its stdin rejects with BrokenPipe and does not kill the agent",
  ignore,
  async fn() {
    const child = spawn("exec 0<&-; sleep 0.2", { stdin: "piped" });
    const writer = child.stdin.getWriter();
    await assertRejectsWith(async () => {
      // The pipe takes 64 KiB before it is full; past that the closed reader shows.
      for (let round = 0; round < 64; round++) await writer.write(new Uint8Array(64 * 1024));
    }, Deno.errors.BrokenPipe);
    assertEquals((await outputOf(child)).status.code, 0);
  },
});

Deno.test({
  name: "spawns leave no descriptor of theirs open, whether their output was read or cancelled",
  ignore,
  async fn() {
    // Warm: the poller's self-pipe is made once, with the first spawn.
    await outputOf(spawn("true"));
    const before = openDescriptors();
    for (let round = 0; round < 10; round++) {
      const read = spawn("cat; echo err >&2", { stdin: "piped" });
      await Promise.all([outputOf(read), read.stdin.close()]);
      const cancelled = spawn("yes", { stdin: "piped" });
      await Promise.all([
        cancelled.stdout.cancel(),
        cancelled.stderr.cancel(),
        cancelled.stdin.close(),
      ]);
      // `yes` may already have died of the closed pipe.
      try {
        Deno.kill(-cancelled.pid, "SIGKILL");
      } catch { /* gone */ }
      await cancelled.status;
    }
    assertEquals(openDescriptors(), before);
  },
});

Deno.test("LLAMA_AGENT_SPAWN=setsid, or a value it does not know, chooses the setsid(1) path", () => {
  const forced = chooseSpawnPath("setsid");
  assertEquals(forced.spawner, undefined);
  assertMatch(describeSpawnPath(forced.path), /^setsid\(1\).*LLAMA_AGENT_SPAWN=setsid/);
  const unknown = chooseSpawnPath("vfork");
  assertEquals(unknown.path.kind, "fallback");
  assertStringIncludes(
    describeSpawnPath(unknown.path),
    `"vfork" is none of auto, posix_spawn, setsid`,
  );
});

Deno.test({
  name:
    "on Linux with glibc 2.29 or later and the ffi permission, posix_spawn with POSIX_SPAWN_SETSID is chosen",
  ignore: Deno.build.os !== "linux",
  fn() {
    const { path } = chooseSpawnPath("auto");
    assertEquals(path.kind, "posix_spawn");
    assertMatch(describeSpawnPath(path), /^posix_spawn with POSIX_SPAWN_SETSID \(glibc 2\.\d+\)$/);
  },
});

Deno.test({
  name: "a pipe has one user: after a capture its stream throws, and the other way round",
  ignore,
  async fn() {
    const child = spawn("echo out; echo err >&2", { stdin: "piped" });
    const out = child.captureOutput!("stdout", 1024);
    assertThrows(() => child.stdout, TypeError, "stdout is already being read or written");
    const err = child.stderr;
    assertThrows(() => child.captureOutput!("stderr", 1024), TypeError, "already being read");
    child.feedStdin!(new Uint8Array());
    assertThrows(() => child.stdin, TypeError, "stdin is already being read or written");
    const [, errText] = await Promise.all([out.done, new Response(err).text(), child.status]);
    assertEquals(out.result(), { text: "out\n", discardedBytes: 0 });
    assertEquals(errText, "err\n");
    const unpiped = spawn("true", { output: "null" });
    assertThrows(() => unpiped.stdin, TypeError, "stdin is not piped");
    await unpiped.status;
  },
});

Deno.test({
  name: "a capture keeps its cap and counts the rest; a feed no one reads can be abandoned",
  ignore,
  async fn() {
    const child = spawn("head -c 300000 /dev/zero; exec sleep 5", { stdin: "piped" });
    const out = child.captureOutput!("stdout", 1000);
    // The child never reads stdin: 1 MiB cannot all go in.
    const feed = child.feedStdin!(new Uint8Array(1024 * 1024));
    const before = openDescriptors();
    feed.abandon();
    await feed.done;
    assert(feed.finished());
    assertEquals(openDescriptors(), before - 1, "our end of stdin is closed");
    const seen = () => out.result().text.length + out.result().discardedBytes;
    await waitUntil(() => seen() === 300_000, "the whole output");
    Deno.kill(-child.pid, "SIGKILL");
    await Promise.all([out.done, child.status, child.captureOutput!("stderr", 10).done]);
    assertEquals(out.result().text.length, 1000);
    assertEquals(out.result().discardedBytes, 299_000);
  },
});
