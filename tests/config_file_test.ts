import { assert, assertEquals, assertRejectsWith } from "./helpers/assert.ts";
import { withTempProject } from "./helpers/run_cli.ts";
import { within } from "./helpers/within.ts";
import { CONFIG_FILE_MAX_BYTES, ConfigFileRefused, readConfigFile } from "../src/config_file.ts";
import {
  linkToDevZero,
  listenAt,
  makeFifo,
  releaseFifo,
  writeSpaces,
} from "./hooks/special_files.ts";

async function refusal(path: string, options?: { maxBytes?: number }): Promise<string> {
  const error = await assertRejectsWith(() => readConfigFile(path, options), ConfigFileRefused);
  return error.message;
}

Deno.test("the limit is 4 MiB", () => {
  assertEquals(CONFIG_FILE_MAX_BYTES, 4 * 1024 * 1024);
});

Deno.test("a regular file is read whole, as UTF-8, byte order mark kept", async () => {
  await withTempProject({}, async (dir) => {
    await Deno.writeFile(`${dir}/a.json`, new TextEncoder().encode('\ufeff{"é": 1}'));
    assertEquals(await readConfigFile(`${dir}/a.json`), '\ufeff{"é": 1}');
    await Deno.writeTextFile(`${dir}/empty.json`, "");
    assertEquals(await readConfigFile(`${dir}/empty.json`), "");
  });
});

Deno.test("a symlink to a regular file is read", async () => {
  await withTempProject({}, async (dir) => {
    await Deno.writeTextFile(`${dir}/real.json`, "{}");
    await Deno.symlink(`${dir}/real.json`, `${dir}/link.json`);
    assertEquals(await readConfigFile(`${dir}/link.json`), "{}");
  });
});

Deno.test("a file of exactly the limit is read; one byte more is refused, naming the limit", async () => {
  await withTempProject({}, async (dir) => {
    await writeSpaces(`${dir}/at.json`, 64);
    assertEquals((await readConfigFile(`${dir}/at.json`, { maxBytes: 64 })).length, 64);
    await writeSpaces(`${dir}/over.json`, 65);
    assertEquals(
      await refusal(`${dir}/over.json`, { maxBytes: 64 }),
      "it is over the 64-byte limit (65 bytes)",
    );
    await writeSpaces(`${dir}/big.json`, CONFIG_FILE_MAX_BYTES + 1);
    assertEquals(
      await refusal(`${dir}/big.json`),
      "it is over the 4 MiB limit (4194305 bytes)",
    );
  });
});

Deno.test("a file whose size stat does not know is still read only up to the limit", async () => {
  // /proc files say size 0 and still have content: what is read, not what stat says, is bounded.
  assert((await readConfigFile("/proc/self/status")).includes("VmHWM"));
  assertEquals(
    await refusal("/proc/self/status", { maxBytes: 10 }),
    "it is over the 10-byte limit",
  );
});

Deno.test("a symlink to /dev/zero is refused as a character device", async () => {
  await withTempProject({}, async (dir) => {
    await linkToDevZero(`${dir}/zero.json`);
    assertEquals(
      await refusal(`${dir}/zero.json`),
      "it is a character device, not a regular file",
    );
  });
});

Deno.test("a FIFO is refused without blocking on its open", async () => {
  await withTempProject({}, async (dir) => {
    const fifo = `${dir}/fifo.json`;
    await makeFifo(fifo);
    const read = readConfigFile(fifo).then(() => "read", (error) => error);
    const settled = await within(read, 10_000);
    if (settled === undefined) {
      releaseFifo(fifo);
      await read;
    }
    assert(settled !== undefined, "readConfigFile blocked on a FIFO");
    assert(settled instanceof ConfigFileRefused, String(settled));
    assertEquals(settled.message, "it is a FIFO, not a regular file");
  });
});

Deno.test("a socket and a directory are refused", async () => {
  await withTempProject({}, async (dir) => {
    using _listener = listenAt(`${dir}/socket.json`);
    assertEquals(await refusal(`${dir}/socket.json`), "it is a socket, not a regular file");
    await Deno.mkdir(`${dir}/dir.json`);
    assertEquals(await refusal(`${dir}/dir.json`), "it is a directory, not a regular file");
  });
});

Deno.test("a missing file and a dangling symlink are NotFound", async () => {
  await withTempProject({}, async (dir) => {
    await assertRejectsWith(() => readConfigFile(`${dir}/none.json`), Deno.errors.NotFound);
    await Deno.symlink(`${dir}/gone.json`, `${dir}/dangling.json`);
    await assertRejectsWith(() => readConfigFile(`${dir}/dangling.json`), Deno.errors.NotFound);
  });
});
