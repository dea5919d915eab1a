/**
 * The posix_spawn child's stream-free capture and feed (fd_capture.ts), on their own and as
 * runCommand uses them: output kept to its end or its cancel, stdin closed once, no descriptor
 * left behind.
 */
import { type CommandRunOptions, runCommand } from "../../src/os/process/command_runner.ts";
import { posixSpawner } from "../../src/os/process/spawn_path.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { noSpawner as ignore, openDescriptors, spawn } from "./posix_spawner_fixtures.ts";

const MiB = 1024 * 1024;

Deno.test({
  name: "a capture cancelled while its pipe is being waited on closes it and settles",
  ignore,
  async fn() {
    const child = spawn("echo early; exec sleep 30");
    const out = child.captureOutput!("stdout", 1024);
    const err = child.captureOutput!("stderr", 1024);
    while (out.result().text === "") await new Promise((resolve) => setTimeout(resolve, 10));
    const before = openDescriptors();
    await out.cancel();
    assert(out.finished());
    await out.done;
    assertEquals(openDescriptors(), before - 1);
    assertEquals(out.result(), { text: "early\n", discardedBytes: 0 });
    Deno.kill(-child.pid, "SIGKILL");
    await Promise.all([child.status, err.done]);
  },
});

Deno.test({
  name: "a capture cancelled after its EOF closes nothing a second time",
  ignore,
  async fn() {
    const child = spawn("echo done");
    const out = child.captureOutput!("stdout", 1024);
    const err = child.captureOutput!("stderr", 1024);
    await Promise.all([out.done, err.done, child.status]);
    const dir = await Deno.makeTempDir();
    // The lowest free numbers are those the capture just closed: a second close would hit this.
    const file = await Deno.open(`${dir}/reused`, { create: true, write: true, read: true });
    try {
      const before = openDescriptors();
      await Promise.all([out.cancel(), err.cancel()]);
      assertEquals(openDescriptors(), before);
      await file.write(new TextEncoder().encode("still open"));
      assertEquals(out.result().text, "done\n");
    } finally {
      file.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "a flood far past one wake-up's reads is read to its end, the cap kept and the rest counted",
  ignore,
  async fn() {
    const child = spawn("head -c 5000000 /dev/zero; echo tail >&2");
    const out = child.captureOutput!("stdout", 1000);
    const err = child.captureOutput!("stderr", 1024);
    await Promise.all([out.done, err.done, child.status]);
    assertEquals(out.result().text.length, 1000);
    assertEquals(out.result().discardedBytes, 5_000_000 - 1000);
    assertEquals(err.result().text, "tail\n");
  },
});

Deno.test({
  name: "an empty feed closes stdin at once, so the child reads EOF",
  ignore,
  async fn() {
    const child = spawn("cat; echo eof", { stdin: "piped" });
    const out = child.captureOutput!("stdout", 1024);
    const err = child.captureOutput!("stderr", 1024);
    const before = openDescriptors();
    const feed = child.feedStdin!(new Uint8Array());
    assert(feed.finished());
    assertEquals(openDescriptors(), before - 1);
    const [status] = await Promise.all([child.status, out.done, err.done, feed.done]);
    assertEquals(status.code, 0);
    assertEquals(out.result().text, "eof\n");
  },
});

Deno.test({
  name: "a feed to a child that exits unread ends (broken pipe) with stdin closed once",
  ignore,
  async fn() {
    // Gone before the feed starts: the first write fails.
    const gone = spawn("exit 0", { stdin: "piped" });
    const goneOut = [gone.captureOutput!("stdout", 10), gone.captureOutput!("stderr", 10)];
    await Promise.all([gone.status, ...goneOut.map((capture) => capture.done)]);
    const before = openDescriptors();
    const early = gone.feedStdin!(new Uint8Array(MiB));
    await early.done;
    assert(early.finished());
    assertEquals(openDescriptors(), before - 1);
    early.abandon();
    assertEquals(openDescriptors(), before - 1);

    // Gone while the feed waits for room (1 MiB does not fit in a pipe; mostly, the child is
    // not gone yet when the first write fills it): the wait ends with it.
    const later = spawn('read -r line; echo "$line"', { stdin: "piped" });
    const out = later.captureOutput!("stdout", 1024);
    const err = later.captureOutput!("stderr", 1024);
    const feed = later.feedStdin!(new TextEncoder().encode("first\n".padEnd(MiB, "x")));
    await Promise.all([later.status, out.done, err.done, feed.done]);
    assertEquals(out.result().text, "first\n");
    assertEquals(openDescriptors(), before - 1, "all of the second child's closed, once");
  },
});

function shell(command: string, options: Partial<CommandRunOptions> = {}) {
  return runCommand({
    commandLine: { kind: "shell", command },
    cwd: "/",
    env: { PATH: "/usr/bin:/bin" },
    timeoutMs: 10_000,
    ...options,
  });
}

/** runCommand spawns through the process-wide path: with LLAMA_AGENT_SPAWN=setsid, not FFI. */
const noProcessSpawner = posixSpawner() === undefined;

/** runCommand's spawner: the process-wide one, not the fixtures' own. */
async function runnerDescriptors(): Promise<number> {
  // The first spawn opens the poller's self-pipe, which stays: count from after one.
  await shell("true");
  return posixSpawner()!.descriptorsOpen;
}

Deno.test({
  name: "a timed-out hook keeps the output it wrote and leaves no descriptor open",
  ignore: noProcessSpawner,
  async fn() {
    const baseline = await runnerDescriptors();
    const result = await shell("echo before; echo oops >&2; exec sleep 30", {
      timeoutMs: 300,
      stdin: new Uint8Array(MiB),
    });
    assertEquals(result.kind, "timed_out");
    if (result.kind !== "timed_out") return;
    assertEquals(result.stdout.text, "before\n");
    assertEquals(result.stderr.text, "oops\n");
    assertEquals(posixSpawner()!.descriptorsOpen, baseline);
  },
});

Deno.test({
  name: "a cancelled hook keeps the output it wrote and leaves no descriptor open",
  ignore: noProcessSpawner,
  async fn() {
    const baseline = await runnerDescriptors();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 300);
    const result = await shell("echo before; exec sleep 30", { signal: controller.signal });
    clearTimeout(timer);
    assertEquals(result.kind, "cancelled");
    if (result.kind !== "cancelled") return;
    assertEquals(result.stdout.text, "before\n");
    assertEquals(posixSpawner()!.descriptorsOpen, baseline);
  },
});

Deno.test({
  name: "a hook that closes stdout early and runs on has its stderr kept and its exit awaited",
  ignore: noProcessSpawner,
  async fn() {
    const baseline = await runnerDescriptors();
    const result = await shell("echo out; exec >&-; sleep 0.3; echo late >&2; exit 3");
    assertEquals(result.kind, "exited");
    if (result.kind !== "exited") return;
    assertEquals(result.exitCode, 3);
    assertEquals(result.stdout.text, "out\n");
    assertEquals(result.stderr.text, "late\n");
    assertEquals(posixSpawner()!.descriptorsOpen, baseline);
  },
});

Deno.test({
  name: "stdin held unread by a process that left the group is closed before the run returns",
  ignore: noProcessSpawner,
  async fn() {
    const baseline = await runnerDescriptors();
    // The setsid'd sleep keeps stdin open and never reads it; it holds no output pipe. (A
    // background job's stdin is /dev/null before its own redirections: fd 3 carries the pipe.)
    const result = await shell(
      "exec 3<&0; setsid sleep 1 <&3 3<&- >/dev/null 2>&1 & echo started",
      {
        stdin: new Uint8Array(MiB),
        drainMs: 100,
      },
    );
    assertEquals(result.kind, "exited");
    if (result.kind !== "exited") return;
    assertEquals(result.stdout.text, "started\n");
    assertEquals(posixSpawner()!.descriptorsOpen, baseline);
  },
});
