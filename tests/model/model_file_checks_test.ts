/**
 * The check made before node-llama-cpp opens a model: the file must be a regular file that
 * starts with the GGUF magic. A model picked from the cache directory is whatever is there, so
 * a FIFO named `*.gguf` is refused without being opened and a link to `/dev/zero` without being
 * read, instead of the load waiting forever.
 */
import { assertEquals, assertRejectsWith } from "../helpers/assert.ts";
import { AgentError } from "../../src/error.ts";
import { checkGgufFile } from "../../src/model/model_file_checks.ts";
import { linkToDevZero, makeFifo } from "../hooks/special_files.ts";
import { within } from "../helpers/within.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "model_file_checks_test_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const SPECIAL = [
  { kind: "a FIFO", make: makeFifo, reason: "it is a FIFO, not a regular file" },
  {
    kind: "a link to /dev/zero",
    make: linkToDevZero,
    reason: "it is a character device, not a regular file",
  },
] as const;

for (const special of SPECIAL) {
  Deno.test(`a model file that is ${special.kind} is refused at once, naming it and why`, async () => {
    await withDir(async (dir) => {
      const path = `${dir}/model.gguf`;
      await special.make(path);
      const checked = within(checkGgufFile(path).then(() => "accepted", (error) => error), 5_000);
      const error = await checked;
      if (!(error instanceof AgentError)) throw new Error(`not refused in time: ${error}`);
      assertEquals(
        [error.code, error.message],
        ["MODEL_LOAD", `Cannot load model "${path}": ${special.reason}`],
      );
    });
  });
}

Deno.test("a file that starts with the GGUF magic passes; a shorter one is not a GGUF file", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/ok.gguf`, "GGUF and the rest");
    await checkGgufFile(`${dir}/ok.gguf`);
    await Deno.writeTextFile(`${dir}/short.gguf`, "GG");
    const error = await assertRejectsWith(() => checkGgufFile(`${dir}/short.gguf`), AgentError);
    assertEquals(error.message, `Cannot load model "${dir}/short.gguf": not a GGUF file`);
  });
});
