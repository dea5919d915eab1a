// Edge cases of the posix_spawn spawner: floods, backpressure, cancels and aborts mid-flight,
// descriptor reuse, signals, the event loop's end, and unusual names, values and paths.
import { assert, assertEquals, assertLess, assertRejectsWith } from "../helpers/assert.ts";
import { waitUntil } from "../helpers/wait_until.ts";
import { within } from "../helpers/within.ts";
import type { GroupChild } from "../../src/os/process/group_child.ts";
import {
  noSpawner as ignore,
  openDescriptors,
  outputOf,
  PATH,
  spawn,
  spawner,
} from "./posix_spawner_fixtures.ts";

const KIB = 1024;

async function byteCount(stream: ReadableStream<Uint8Array>): Promise<number> {
  let total = 0;
  for await (const chunk of stream) total += chunk.byteLength;
  return total;
}

/** The state letter of /proc/PID/stat ("S" sleeping, "T" stopped, "Z" zombie). */
function processState(pid: number): string {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
}

/** A child that reads nothing until the file `go` appears in `dir`, then runs `then`. */
function waitingForGo(dir: string, then: string): GroupChild {
  return spawn(`while [ ! -e go ]; do sleep 0.01; done; ${then}`, { cwd: dir, stdin: "piped" });
}

async function inTempDir(name: string, body: (dir: string) => Promise<void>): Promise<void> {
  const dir = `${await Deno.realPath(await Deno.makeTempDir())}/${name}`;
  await Deno.mkdir(dir);
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir.slice(0, dir.lastIndexOf("/")), { recursive: true });
  }
}

Deno.test({
  name: "50 children spawned at once each echo their own 200 KiB of stdin back whole",
  ignore,
  async fn() {
    const runs = Array.from({ length: 50 }, async (_, index) => {
      const child = spawn("cat", { stdin: "piped" });
      const input = new Uint8Array(200 * KIB).map((_, at) => (at * 7 + index) & 0xff);
      const writer = child.stdin.getWriter();
      const [echoed] = await Promise.all([
        new Response(child.stdout).arrayBuffer(),
        writer.write(input).then(() => writer.close()),
        child.stderr.cancel(),
      ]);
      assertEquals((await child.status).code, 0);
      assertEquals(new Uint8Array(echoed), input);
    });
    await Promise.all(runs);
  },
});

Deno.test({
  name: "a child alternating 4 MiB floods on stdout and stderr, never reading stdin, is read whole",
  ignore,
  async fn() {
    const child = spawn(
      "for i in 1 2 3 4 5 6 7 8; do head -c 524288 /dev/zero; head -c 524288 /dev/zero >&2; done",
      { stdin: "piped" },
    );
    const [status, out, err] = await Promise.all([
      child.status,
      byteCount(child.stdout),
      // A BYOB reader on one stream, a default reader on the other.
      (async () => {
        const reader = child.stderr.getReader({ mode: "byob" });
        let total = 0;
        let buffer = new Uint8Array(10_000);
        while (true) {
          const { done, value } = await reader.read(buffer);
          if (done) break;
          total += value.byteLength;
          buffer = new Uint8Array(value.buffer);
        }
        return total;
      })(),
    ]);
    await child.stdin.close();
    assertEquals([status.code, out, err], [0, 4096 * KIB, 4096 * KIB]);
  },
});

Deno.test({
  name: "a reader cancelled mid-flood closes the pipe: the child's next writes fail and it goes on",
  ignore,
  async fn() {
    // SIGPIPE ignored: the child sees EPIPE, says so on stderr and exits by itself.
    const child = spawn(
      "trap '' PIPE; while printf '%01024d' 0; do :; done; echo broken >&2",
    );
    const reader = child.stdout.getReader();
    await reader.read();
    await reader.cancel();
    const { status, stderr } = {
      status: await child.status,
      stderr: await new Response(child.stderr).text(),
    };
    assertEquals(status.code, 0);
    assert(stderr.includes("broken"), stderr);
  },
});

Deno.test({
  name: "a reader that stops pulling leaves the child blocked on a full pipe, read ahead bounded",
  ignore,
  async fn() {
    await inTempDir("count", async (dir) => {
      // Counts each 64 KiB it has written; it blocks once the pipe and the read-ahead are full.
      const child = spawn(
        "i=0; while head -c 65536 /dev/zero; do i=$((i+1)); echo $i > count; done",
        { cwd: dir },
      );
      const reader = child.stdout.getReader();
      try {
        await reader.read();
        // The shell writes the count after each head: until the first, there is no file.
        const written = () => {
          try {
            return Number(Deno.readTextFileSync(`${dir}/count`).trim() || 0);
          } catch (error) {
            if (error instanceof Deno.errors.NotFound) return 0;
            throw error;
          }
        };
        let last = -1;
        await waitUntil(async () => {
          const now = written();
          const still = now === last && now > 0;
          last = now;
          if (!still) await new Promise((resolve) => setTimeout(resolve, 200));
          return still;
        }, "the child to block on its full stdout");
        // Nothing is read ahead, and a pipe holds at most 1 MiB; 8 MiB would mean a queue.
        assertLess(written() * 64, 2048, `${written()} chunks of 64 KiB written`);
      } finally {
        await reader.cancel();
        await child.stderr.cancel();
      }
      // head dies of SIGPIPE, which ends the shell's loop.
      assertEquals((await child.status).code, 0);
    });
  },
});

Deno.test({
  name: "stdin closed while a write waits on a full pipe delivers every byte, then EOF",
  ignore,
  async fn() {
    await inTempDir("go", async (dir) => {
      const child = waitingForGo(dir, "wc -c");
      const writer = child.stdin.getWriter();
      const written = writer.write(new Uint8Array(1024 * KIB));
      const closed = writer.close();
      await Deno.writeTextFile(`${dir}/go`, "");
      await Promise.all([written, closed]);
      const { stdout, status } = await outputOf(child);
      assertEquals([status.code, stdout.trim()], [0, String(1024 * KIB)]);
    });
  },
});

Deno.test({
  name: "a write waiting on a full pipe fails with BrokenPipe when the child exits unread",
  ignore,
  async fn() {
    await inTempDir("go", async (dir) => {
      const child = waitingForGo(dir, "exit 3");
      const writer = child.stdin.getWriter();
      // Settled into a value at once: the child may exit and the write fail before the go file's
      // write returns, and a rejection nobody handles yet fails the whole test file.
      const written = writer.write(new Uint8Array(1024 * KIB)).then(
        () => ({ failed: undefined }),
        (error: unknown) => ({ failed: error }),
      );
      await Deno.writeTextFile(`${dir}/go`, "");
      await assertRejectsWith(async () => {
        const { failed } = await written;
        if (failed !== undefined) throw failed;
      }, Deno.errors.BrokenPipe);
      assertEquals((await outputOf(child)).status.code, 3);
    });
  },
});

Deno.test({
  name: "aborting stdin while a write waits on a full pipe settles at once and closes the pipe",
  ignore,
  async fn() {
    await inTempDir("go", async (dir) => {
      const child = waitingForGo(dir, "wc -c");
      const writer = child.stdin.getWriter();
      // A first write that settles: the next one is in flight, not queued behind the start.
      await writer.write(new Uint8Array(1));
      const written = writer.write(new Uint8Array(1024 * KIB));
      written.catch(() => {});
      const aborted = await within(writer.abort(new Error("stop")).then(() => "aborted"), 5_000);
      await Deno.writeTextFile(`${dir}/go`, "");
      // The child reads what reached the pipe, then EOF: our end was closed by the abort.
      const { stdout, status } = await outputOf(child);
      assertEquals(aborted, "aborted");
      assertEquals(status.code, 0);
      assertLess(Number(stdout.trim()), 1024 * KIB);
      await assertRejectsWith(() => written, Error);
    });
  },
});

Deno.test({
  name: "200 spawns with every mix of null and piped stdin and output leave descriptors flat",
  ignore,
  async fn() {
    await outputOf(spawn("true"));
    const before = openDescriptors();
    for (let round = 0; round < 50; round++) {
      for (const stdin of ["null", "piped"] as const) {
        for (const output of ["null", "piped"] as const) {
          const child = spawn("cat; echo err >&2", { stdin, output });
          const writer = stdin === "piped" ? child.stdin.getWriter() : undefined;
          const closing = writer?.write(new Uint8Array([1, 2])).then(() => writer.close());
          if (output === "piped") await Promise.all([outputOf(child), closing]);
          else await Promise.all([child.status, closing]);
        }
      }
    }
    assertEquals(openDescriptors(), before);
  },
});

Deno.test({
  name: "a descriptor number freed by a cancelled reader, then reused by a file, is never read",
  ignore,
  async fn() {
    await inTempDir("files", async (dir) => {
      const children = Array.from(
        { length: 8 },
        () =>
          spawn(
            "trap '' PIPE; while printf x; do :; done; while [ ! -e ../go ]; do sleep 0.01; done",
            { cwd: dir },
          ),
      );
      await Promise.all(children.map((child) => child.stdout.cancel()));
      const files = await Promise.all(children.map(async (_, index) => {
        const path = `${dir}/${index}`;
        await Deno.writeTextFile(path, "untouched");
        return { path, file: await Deno.open(path, { read: true, write: true }) };
      }));
      await Deno.writeTextFile(`${dir}/../go`, "");
      await Promise.all(
        children.map((child) => Promise.all([child.status, child.stderr.cancel()])),
      );
      for (const { path, file } of files) {
        // A stray read would have moved the offset; a stray write would have changed the text.
        assertEquals(await file.seek(0, Deno.SeekMode.Current), 0);
        file.close();
        assertEquals(await Deno.readTextFile(path), "untouched");
      }
    });
  },
});

Deno.test({
  name: "kill() signals a live child, and throws TypeError once the child has been reaped",
  ignore,
  async fn() {
    const child = spawn("exec sleep 60");
    child.kill("SIGTERM");
    assertEquals((await outputOf(child)).status.signal, "SIGTERM");
    let thrown: unknown;
    try {
      child.kill("SIGKILL");
    } catch (error) {
      thrown = error;
    }
    assert(thrown instanceof TypeError, String(thrown));
  },
});

Deno.test({
  name: "a child stopped by SIGSTOP and continued reports only its exit, with its code",
  ignore,
  async fn() {
    const child = spawn("kill -STOP $$; exit 7");
    let settled = false;
    child.status.then(() => settled = true);
    await waitUntil(() => processState(child.pid) === "T", "the child to stop");
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert(!settled, "a stop is no exit");
    child.kill("SIGCONT");
    assertEquals((await outputOf(child)).status, { success: false, code: 7, signal: null });
  },
});

/** Runs a `deno eval` script that spawns through the FFI path; its exit code, or "hung". */
async function evalScript(body: string): Promise<number | "hung"> {
  const url = new URL("../../src/os/process/spawn_path.ts", import.meta.url).href;
  const script = `import { chooseSpawnPath } from ${JSON.stringify(url)};
const { spawner } = chooseSpawnPath(undefined);
const spawn = (script, output = "piped") => spawner.spawn(
  { program: "/bin/sh", args: ["-c", script] },
  { cwd: "/", env: { PATH: "/usr/bin:/bin" }, stdin: "null", output },
);
${body}`;
  const process = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", script],
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const code = await within(process.status.then((status) => status.code), 20_000);
  if (code !== undefined) return code;
  process.kill("SIGKILL");
  await process.status;
  return "hung";
}

Deno.test({
  name: "a script that awaits its child's status and output ends by itself with code 0",
  ignore,
  async fn() {
    const code = await evalScript(`const child = spawn("echo hi; echo err >&2");
const [status, out] = await Promise.all([child.status, new Response(child.stdout).text()]);
if (!status.success || out !== "hi\\n") Deno.exit(9);`);
    assertEquals(code, 0);
  },
});

Deno.test({
  name: "a script that neither awaits nor reads its child ends by itself once the child does",
  ignore,
  async fn() {
    assertEquals(await evalScript(`spawn("echo hi; echo err >&2; sleep 0.2");`), 0);
    assertEquals(await evalScript(`spawn("sleep 0.2", "null");`), 0);
  },
});

Deno.test({
  name: "environment values that are empty or not ASCII reach the child byte for byte",
  ignore,
  async fn() {
    const env = { EMPTY: "", UNICODE: "h\u00e9llo \u2713 \u{1F600}", SPACED: " a  b " };
    const child = spawner!.spawn(
      { program: "/usr/bin/env", args: [] },
      { cwd: "/", env, stdin: "null" },
    );
    const lines = (await outputOf(child)).stdout.split("\n").filter((line) => line !== "");
    assertEquals(
      lines.sort(),
      Object.entries(env).map(([name, value]) => `${name}=${value}`).sort(),
    );
  },
});

Deno.test({
  name: "arguments with spaces, newlines, unicode and empty ones arrive as given",
  ignore,
  async fn() {
    const args = ["a b", "line\nnext", "\u00fcn\u00efc\u00f8de \u{1F600}", "", "  "];
    const child = spawner!.spawn(
      { program: "/bin/sh", args: ["-c", 'printf "%s\\0" "$@"', "sh", ...args] },
      { cwd: "/", env: { PATH }, stdin: "null" },
    );
    assertEquals((await outputOf(child)).stdout.split("\0").slice(0, -1), args);
  },
});

Deno.test({
  name: "a cwd with spaces and unicode is the child's working directory",
  ignore,
  async fn() {
    await inTempDir("d\u00eer with spaces \u2713", async (dir) => {
      assertEquals((await outputOf(spawn("pwd", { cwd: dir }))).stdout, `${dir}\n`);
    });
  },
});

Deno.test({
  name: "a relative program path is resolved against the child's cwd, not the agent's",
  ignore,
  async fn() {
    await inTempDir("rel", async (dir) => {
      await Deno.mkdir(`${dir}/sub`);
      await Deno.writeTextFile(`${dir}/sub/x`, "#!/bin/sh\necho ran $0\n", { mode: 0o755 });
      for (const program of ["./sub/x", "sub/x"]) {
        const child = spawner!.spawn(
          { program, args: [] },
          { cwd: dir, env: { PATH }, stdin: "null" },
        );
        assertEquals((await outputOf(child)).stdout, `ran ${program}\n`);
      }
      await assertRejectsWith(
        () =>
          Promise.resolve().then(() =>
            spawner!.spawn({ program: "./x", args: [] }, { cwd: dir, env: { PATH }, stdin: "null" })
          ),
        Deno.errors.NotFound,
      );
    });
  },
});

Deno.test({
  name: "an empty PATH entry searches the child's cwd, in its place in the order",
  ignore,
  async fn() {
    await inTempDir("path", async (dir) => {
      await Deno.writeTextFile(`${dir}/here`, "#!/bin/sh\necho from cwd\n", { mode: 0o755 });
      await Deno.writeTextFile(`${dir}/true`, "#!/bin/sh\necho shadowed\n", { mode: 0o755 });
      const run = async (program: string, path: string) =>
        (await outputOf(
          spawner!.spawn({ program, args: [] }, { cwd: dir, env: { PATH: path }, stdin: "null" }),
        )).stdout;
      assertEquals(await run("here", "/nonexistent::/bin"), "from cwd\n");
      assertEquals(await run("here", "/usr/bin:"), "from cwd\n");
      assertEquals(await run("true", ":/usr/bin:/bin"), "shadowed\n");
      assertEquals(await run("true", "/usr/bin:/bin:"), "");
    });
  },
});

Deno.test({
  name: "kill() right after the output ends either reaches the child or throws TypeError",
  ignore,
  async fn() {
    for (let round = 0; round < 100; round++) {
      const child = spawn("exit 0", { output: "piped" });
      await Promise.all([byteCount(child.stdout), byteCount(child.stderr)]);
      try {
        child.kill("SIGCONT");
      } catch (error) {
        assert(error instanceof TypeError, `round ${round}: ${error}`);
      }
      await child.status;
    }
  },
});

Deno.test({
  name: "a BYOB read into 16-bit elements that EOF leaves half full errors that stream alone",
  ignore,
  async fn() {
    await inTempDir("go", async (dir) => {
      const child = spawn("printf ab; while [ ! -e go ]; do sleep 0.01; done; printf c", {
        cwd: dir,
      });
      const reader = child.stdout.getReader({ mode: "byob" });
      assertEquals((await reader.read(new Uint16Array(1))).value?.byteLength, 2);
      // Pending before the last byte and the EOF arrive: the one byte half fills it.
      const last = reader.read(new Uint16Array(1));
      await Deno.writeTextFile(`${dir}/go`, "");
      await assertRejectsWith(() => last, TypeError);
      // The poll loop lives on: the next spawn is read as ever.
      assertEquals((await outputOf(spawn("echo next"))).stdout, "next\n");
      await Promise.all([child.status, child.stderr.cancel()]);
    });
  },
});
