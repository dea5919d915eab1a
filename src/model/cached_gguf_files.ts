/**
 * The GGUF models in the model cache directory (`modelCacheDir`): what `hf:` downloads left
 * there and what the user copied in, as the editor's model picker offers them. Only the top of
 * the directory is read: a model is a file there, not a tree.
 */
import { resolve } from "node:path";

/** What a download in progress writes beside (or instead of) the model: never a model. */
const PARTIAL_DOWNLOAD_SUFFIX = ".ipull";

/** `-00002-of-00003.gguf`: a later part of a split model; llama.cpp opens the first part. */
const SPLIT_PART = /-(\d{5})-of-\d{5}\.gguf$/;

/**
 * The absolute paths of the `*.gguf` regular files at the top of `dir`, sorted by file name.
 * Left out: partial downloads, links and other non-regular files, and every part of a split
 * model but the first. A missing directory (nothing downloaded yet) is an empty list.
 */
export async function listCachedGgufFiles(dir: string): Promise<string[]> {
  const names = new Set<string>();
  try {
    for await (const entry of Deno.readDir(dir)) {
      // `isFile` is false for a symlink: one pointing out of the cache is not ours to offer.
      if (entry.isFile) names.add(entry.name);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  return [...names]
    .filter((name) =>
      name.endsWith(".gguf") && name !== ".gguf" &&
      !names.has(name + PARTIAL_DOWNLOAD_SUFFIX) && !isLaterSplitPart(name)
    )
    .sort()
    .map((name) => resolve(dir, name));
}

function isLaterSplitPart(name: string): boolean {
  const part = SPLIT_PART.exec(name)?.[1];
  return part !== undefined && Number(part) > 1;
}
