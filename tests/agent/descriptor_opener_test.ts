import { assert, assertEquals } from "../helpers/assert.ts";
import { DescriptorOpener } from "../../src/os/files/descriptor_opener.ts";
import { loadLibc } from "../../src/os/files/libc.ts";
import { LocalFileAccess } from "../../src/agent/files/local_file_access.ts";
import { makeFifo } from "../hooks/special_files.ts";
import { hookedLibc } from "./hooked_libc.ts";
import { repoUrl, runProbeScript } from "./probe_script.ts";
import { withTempDir } from "./temp_dir.ts";

const libc = loadLibc();

Deno.test({
  name: "a FIFO or a device is refused before anything opens it for reading or writing",
  ignore: libc === undefined,
  fn: async () => {
    assert(libc !== undefined);
    await withTempDir({ "p/a.txt": "a" }, async (base) => {
      await makeFifo(`${base}/p/pipe`);
      // An open would wake a process waiting on the FIFO, or act on the device. Reads open
      // through "/proc/self/fd/N" once the file is known to be regular; writes ask for O_WRONLY.
      const opened: string[] = [];
      const spied = hookedLibc(libc, ({ name, args }) => {
        const [path, flags] = [String(args[1]), Number(args[2])];
        const forData = path.startsWith("/proc/self/fd/") || (flags & libc.flags.O_WRONLY) !== 0;
        if (name === "openat" && forData) opened.push(path);
      });
      const files = new LocalFileAccess({
        cwd: `${base}/p`,
        roots: [`${base}/p`, "/dev"],
        opener: new DescriptorOpener(spied),
      });
      for (const path of ["pipe", "/dev/null"]) {
        assertEquals(await files.readTextFile(path), {
          ok: false,
          failure: "failed",
          message: `Cannot read "${path}": it is not a regular file`,
        });
        assertEquals(await files.writeTextFile(path, "x"), {
          ok: false,
          failure: "failed",
          message: `Cannot write "${path}": it is not a regular file`,
        });
      }
      assertEquals(opened, []);
    });
  },
});

Deno.test({
  name: "a file swapped for a symlink just before it is opened for writing is not written through",
  ignore: libc === undefined,
  fn: async () => {
    assert(libc !== undefined);
    await withTempDir({ "p/a.txt": "inside", "outside/a.txt": "outside" }, async (base) => {
      await Deno.symlink(`${base}/outside/a.txt`, `${base}/p/a_link`);
      let swapped = false;
      // After every check of the directory and of the name in it, at the open itself.
      const swapping = hookedLibc(libc, ({ name, args }) => {
        if (swapped || name !== "openat" || (Number(args[2]) & libc.flags.O_WRONLY) === 0) return;
        swapped = true;
        Deno.renameSync(`${base}/p/a_link`, `${base}/p/a.txt`);
      });
      const files = new LocalFileAccess({
        cwd: `${base}/p`,
        roots: [`${base}/p`],
        opener: new DescriptorOpener(swapping),
      });
      const write = await files.writeTextFile("a.txt", "new");
      assert(swapped, "the write never reached its open: the test proves nothing");
      assertEquals(write, {
        ok: false,
        failure: "refused",
        message: `Cannot write "a.txt": it resolves to "${base}/outside/a.txt", which is outside ` +
          `the allowed directories ("${base}/p")`,
      });
      assertEquals(await Deno.readTextFile(`${base}/outside/a.txt`), "outside");
    });
  },
});

Deno.test({
  name: "a directory swapped as it is opened for one the runtime may not write is not written",
  ignore: libc === undefined,
  fn: async () => {
    await withTempDir({ "p/d/a.txt": "a", "q/d/b.txt": "b" }, async (base) => {
      // q is a root the agent may read but not write; p/d_link stands ready to replace p/d.
      await Deno.symlink(`${base}/q/d`, `${base}/p/d_link`);
      const script = `import { allowedRoots } from "${repoUrl("src/os/files/allowed_roots.ts")}";
import { DescriptorOpener } from "${repoUrl("src/os/files/descriptor_opener.ts")}";
import { loadLibc } from "${repoUrl("src/os/files/libc.ts")}";
import { LocalFileAccess } from "${repoUrl("src/agent/files/local_file_access.ts")}";
import { hookedLibc } from "${repoUrl("tests/agent/hooked_libc.ts")}";
const base = "${base}";
const libc = loadLibc();
if (libc === undefined) throw new Error("no libc");
let swapped = false;
// As the directory is opened: the path names p/d, the descriptor holds q/d.
const swapping = hookedLibc(libc, ({ name, args }) => {
  if (swapped || name !== "openat" || (Number(args[2]) & libc.flags.O_DIRECTORY) === 0) return;
  swapped = true;
  Deno.renameSync(base + "/p/d", base + "/p/d_was");
  Deno.renameSync(base + "/p/d_link", base + "/p/d");
});
const roots = await allowedRoots({
  launchCwd: base + "/p",
  home: undefined,
  additionalDirectories: [base + "/q"],
});
const files = new LocalFileAccess({ cwd: base + "/p", roots, opener: new DescriptorOpener(swapping) });
const write = await files.writeTextFile("d/new.txt", "x");
console.log(JSON.stringify({ swapped, write }));
`;
      const probed = await runProbeScript(base, script, {
        read: [base],
        write: [`${base}/p`],
        ffi: true,
      });
      assertEquals(probed, {
        swapped: true,
        write: {
          ok: false,
          failure: "failed",
          message: `Cannot write "d/new.txt": Requires write access to "${base}/q/d/new.txt", ` +
            "run again with the --allow-write flag",
        },
      });
      assertEquals([...Deno.readDirSync(`${base}/q/d`)].map((entry) => entry.name), ["b.txt"]);
    });
  },
});
