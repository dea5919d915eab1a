import { assertEquals } from "../helpers/assert.ts";
import { listCachedGgufFiles } from "../../src/model/cached_gguf_files.ts";

async function withCacheDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "gguf_cache_" }));
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("the cache's models are its top-level .gguf files, sorted by name, as absolute paths", async () => {
  await withCacheDir(async (dir) => {
    for (const name of ["b.gguf", "a.gguf", "notes.txt", "c.GGUF.bak"]) {
      await Deno.writeTextFile(`${dir}/${name}`, "");
    }
    await Deno.mkdir(`${dir}/nested`);
    await Deno.writeTextFile(`${dir}/nested/deep.gguf`, "");
    assertEquals(await listCachedGgufFiles(dir), [`${dir}/a.gguf`, `${dir}/b.gguf`]);
  });
});

Deno.test("a download in progress, a link and a directory named .gguf are not models", async () => {
  await withCacheDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/whole.gguf`, "");
    await Deno.writeTextFile(`${dir}/coming.gguf.ipull`, "");
    // ipull's final name beside its progress file: the download has not finished.
    await Deno.writeTextFile(`${dir}/half.gguf`, "");
    await Deno.writeTextFile(`${dir}/half.gguf.ipull`, "");
    await Deno.symlink(`${dir}/whole.gguf`, `${dir}/link.gguf`);
    await Deno.mkdir(`${dir}/folder.gguf`);
    assertEquals(await listCachedGgufFiles(dir), [`${dir}/whole.gguf`]);
  });
});

Deno.test("a split model is offered by its first part only", async () => {
  await withCacheDir(async (dir) => {
    for (const part of ["00001", "00002", "00003"]) {
      await Deno.writeTextFile(`${dir}/big-${part}-of-00003.gguf`, "");
    }
    assertEquals(await listCachedGgufFiles(dir), [`${dir}/big-00001-of-00003.gguf`]);
  });
});

Deno.test("a cache directory that does not exist yet holds no models", async () => {
  await withCacheDir(async (dir) => {
    assertEquals(await listCachedGgufFiles(`${dir}/never-made`), []);
  });
});
