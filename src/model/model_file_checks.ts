/**
 * Checks made before node-llama-cpp is asked for a model, so that a wrong path or an offline
 * machine gets a clear error at once instead of a library failure or minutes of retries.
 */
import { openRegularFile, readAtMost } from "../config_file.ts";
import { AgentError, errorMessage } from "../error.ts";

/** A clear error naming the path before node-llama-cpp sees a missing or foreign file. */
export async function checkGgufFile(path: string): Promise<void> {
  let magic: Uint8Array;
  try {
    // A FIFO is never opened, a device never read: a model picked from the cache directory is
    // whatever file is there.
    using opened = await openRegularFile(path);
    magic = await readAtMost((into) => opened.file.read(into), 4);
  } catch (error) {
    const detail = error instanceof Deno.errors.NotFound ? "no such file" : errorMessage(error);
    throw new AgentError("MODEL_LOAD", `Cannot load model "${path}": ${detail}`, { cause: error });
  }
  if (new TextDecoder().decode(magic) !== "GGUF") {
    throw new AgentError("MODEL_LOAD", `Cannot load model "${path}": not a GGUF file`);
  }
}

const HUB_HOST = "huggingface.co";
const DNS_TIMEOUT_MS = 5_000;

/**
 * Why the hub cannot be reached, or undefined when its name resolves. Without this, an offline
 * machine waits through node-llama-cpp's retries before learning anything.
 */
export async function hubUnreachable(): Promise<string | undefined> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), DNS_TIMEOUT_MS);
  try {
    await Deno.resolveDns(HUB_HOST, "A", { signal: controller.signal });
    return undefined;
  } catch (error) {
    return `cannot resolve "${HUB_HOST}" (${errorMessage(error)})`;
  } finally {
    clearTimeout(timer);
  }
}
