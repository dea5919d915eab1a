import { assert, assertEquals } from "../helpers/assert.ts";
import { AT_FDCWD, libcArch, LibcError, loadLibc } from "../../src/os/files/libc.ts";
import { repoUrl, runProbeScript } from "./probe_script.ts";
import { withTempDir } from "./temp_dir.ts";

const LINUX_GLIBC = Deno.build.os === "linux" && Deno.build.env === "gnu";

Deno.test("libc is used only by a Linux build of Deno linked against glibc", () => {
  // Elsewhere "libc.so.6" is no library the runtime already holds (musl's compatibility shim,
  // say), and the handle closed after taking the addresses would unload it under them.
  assertEquals(libcArch({ os: "linux", arch: "x86_64", env: "gnu" }), "x86_64");
  assertEquals(libcArch({ os: "linux", arch: "aarch64", env: "gnu" }), "aarch64");
  assertEquals(libcArch({ os: "linux", arch: "x86_64", env: "musl" }), undefined);
  assertEquals(libcArch({ os: "linux", arch: "x86_64", env: undefined }), undefined);
  assertEquals(libcArch({ os: "darwin", arch: "aarch64", env: "gnu" }), undefined);
});

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
    const script = `import { allowedRoots } from "${repoUrl("src/os/files/allowed_roots.ts")}";
import { confinedOpener } from "${repoUrl("src/os/files/confined_opener.ts")}";
import { LocalFileAccess } from "${repoUrl("src/agent/files/local_file_access.ts")}";
const cwd = "${base}/p";
const files = new LocalFileAccess({ cwd, roots: await allowedRoots({ launchCwd: cwd, home: undefined }) });
console.log(JSON.stringify({
  opener: confinedOpener().constructor.name,
  inside: await files.readTextFile("a.txt"),
  outside: (await files.readTextFile("../outside/b.txt")).ok,
}));
`;
    assertEquals(await runProbeScript(base, script, { read: [base], write: [base] }), {
      opener: "PathOpener",
      inside: { ok: true, content: "inside\n" },
      outside: false,
    });
  });
});
