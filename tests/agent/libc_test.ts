import { assert, assertEquals } from "../helpers/assert.ts";
import { AT_FDCWD, LibcError, loadLibc } from "../../src/agent/libc.ts";
import { withTempDir } from "./temp_dir.ts";

const LINUX_GLIBC = Deno.build.os === "linux" && Deno.build.env === "gnu";

Deno.test({
  name: "libc loads on Linux and names what a descriptor holds, wherever it has moved",
  ignore: !LINUX_GLIBC,
  fn: async () => {
    await withTempDir({ "d/a.txt": "a" }, async (base) => {
      const libc = loadLibc();
      assert(libc !== undefined, "libc should load where the tests run (Linux, glibc, FFI)");
      assert(loadLibc() === libc, "libc is loaded once");
      const { O_PATH, O_CLOEXEC } = libc.flags;
      const fd = libc.openat(AT_FDCWD, `${base}/d/a.txt`, O_PATH | O_CLOEXEC);
      try {
        assertEquals(libc.pathOf(fd), `${base}/d/a.txt`);
        assertEquals(libc.status(fd), { type: "file", size: 1, links: 1 });
        await Deno.rename(`${base}/d`, `${base}/e`);
        assertEquals(libc.pathOf(fd), `${base}/e/a.txt`);
      } finally {
        libc.close(fd);
      }
    });
  },
});

Deno.test({
  name: "a failed call carries its errno and the C library's reason",
  ignore: !LINUX_GLIBC,
  fn: async () => {
    await withTempDir({}, (base) => {
      const libc = loadLibc();
      assert(libc !== undefined);
      let caught: unknown;
      try {
        libc.openat(AT_FDCWD, `${base}/missing`, libc.flags.O_PATH);
      } catch (error) {
        caught = error;
      }
      assert(caught instanceof LibcError, "a missing file should throw a LibcError");
      assertEquals([caught.syscall, caught.errno, caught.message], [
        "openat",
        2,
        "No such file or directory",
      ]);
      return Promise.resolve();
    });
  },
});

Deno.test("without the FFI grant the fallback opener is used, and it still confines", async () => {
  await withTempDir({ "p/a.txt": "inside\n", "outside/b.txt": "outside\n" }, async (base) => {
    const source = (module: string) => new URL(`../../src/agent/${module}`, import.meta.url).href;
    await Deno.writeTextFile(
      `${base}/probe.ts`,
      `import { allowedRoots } from "${source("allowed_roots.ts")}";
import { confinedOpener } from "${source("confined_opener.ts")}";
import { LocalFileAccess } from "${source("local_file_access.ts")}";
const cwd = "${base}/p";
const files = new LocalFileAccess({ cwd, roots: await allowedRoots({ launchCwd: cwd, home: undefined }) });
console.log(JSON.stringify({
  opener: confinedOpener().constructor.name,
  inside: await files.readTextFile("a.txt"),
  outside: (await files.readTextFile("../outside/b.txt")).ok,
}));
`,
    );
    const repo = new URL("../..", import.meta.url).pathname;
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--no-prompt",
        "--no-config",
        `--allow-read=${base},${repo}`,
        `--allow-write=${base}`,
        `${base}/probe.ts`,
      ],
      stdin: "null",
      clearEnv: true,
      env: { NO_COLOR: "1", DENO_DIR: Deno.env.get("DENO_DIR") ?? `${base}/deno_dir` },
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assertEquals(output.code, 0, stderr);
    assertEquals(JSON.parse(new TextDecoder().decode(output.stdout)), {
      opener: "PathOpener",
      inside: { ok: true, content: "inside\n" },
      outside: false,
    });
  });
});
