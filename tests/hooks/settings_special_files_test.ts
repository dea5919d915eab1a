/**
 * Settings files that are not small regular files: each is one diagnostic naming the file and
 * why, and the rest of the chain loads. (`/dev/zero` is tested through the CLI, where a reader
 * that does not stop can be killed; here it would take the test process down with it.)
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { within } from "../helpers/within.ts";
import type { LoadedSettings } from "../../src/hooks/settings/settings_chain.ts";
import { makeFifo, releaseFifo, withSocketMaker, writeSpaces } from "./special_files.ts";
import {
  commandGroup,
  commands,
  hooksFile,
  load,
  type TempChain,
  withChain,
} from "./temp_chain.ts";

const FOUR_MIB = 4 * 1024 * 1024;

const CHAIN = {
  user: hooksFile({ Stop: [commandGroup("user-stop")] }),
  local: hooksFile({ Stop: [commandGroup("local-stop")] }),
};

/** The project file is made by `make`; the user and local files are ordinary. */
function withProjectFile(
  make: (path: string) => Promise<void> | void,
  fn: (dirs: TempChain) => Promise<void>,
): Promise<void> {
  return withChain(CHAIN, async (dirs) => {
    await Deno.mkdir(`${dirs.cwd}/.claude`, { recursive: true });
    await make(dirs.projectFile);
    await fn(dirs);
  });
}

function assertRefused(loaded: LoadedSettings, dirs: TempChain, message: string): void {
  assertEquals(loaded.diagnostics, [{
    code: "SETTINGS_UNREADABLE",
    severity: "error",
    file: dirs.projectFile,
    pointer: "",
    message,
  }]);
  assertEquals(loaded.files.map((f) => f.status), ["loaded", "unreadable", "loaded"]);
  assertEquals(commands(loaded), ["user-stop", "local-stop"]);
}

Deno.test("a settings file that is a FIFO is a diagnostic and the rest of the chain loads", async () => {
  await withProjectFile(makeFifo, async (dirs) => {
    const loading = load(dirs);
    const loaded = await within(loading, 10_000);
    if (loaded === undefined) {
      releaseFifo(dirs.projectFile);
      await loading;
    }
    assert(loaded !== undefined, "loading the chain blocked on a FIFO");
    assertRefused(loaded, dirs, "Cannot read settings file: it is a FIFO, not a regular file");
  });
});

Deno.test("a settings file that is a socket is a diagnostic and the rest of the chain loads", async () => {
  await withSocketMaker((makeSocket) =>
    withProjectFile(makeSocket, async (dirs) => {
      assertRefused(
        await load(dirs),
        dirs,
        "Cannot read settings file: it is a socket, not a regular file",
      );
    })
  );
});

Deno.test("a settings file over 4 MiB is a diagnostic and the rest of the chain loads", async () => {
  await withProjectFile((path) => writeSpaces(path, FOUR_MIB + 1), async (dirs) => {
    assertRefused(
      await load(dirs),
      dirs,
      `Cannot read settings file: it is over the 4 MiB limit (${FOUR_MIB + 1} bytes)`,
    );
  });
});

Deno.test("a settings file of exactly 4 MiB still loads", async () => {
  await withProjectFile((path) => writeSpaces(path, FOUR_MIB), async (dirs) => {
    const loaded = await load(dirs);
    assertEquals(loaded.diagnostics, []);
    assertEquals(loaded.files.map((f) => f.status), ["loaded", "loaded", "loaded"]);
  });
});

Deno.test("a settings file symlinked to a regular file loads", async () => {
  await withProjectFile(async (path) => {
    const real = `${path}.real`;
    await Deno.writeTextFile(real, hooksFile({ Stop: [commandGroup("linked-stop")] }));
    await Deno.symlink(real, path);
  }, async (dirs) => {
    const loaded = await load(dirs);
    assertEquals(loaded.diagnostics, []);
    assertEquals(commands(loaded), ["user-stop", "linked-stop", "local-stop"]);
  });
});
