/**
 * The files `acp` is told to read (`--model PATH`, `--model scripted:FILE`, `--rules FILE`),
 * checked before it speaks ACP: one it cannot read ends the start with exit 2 and a message
 * naming the path and what llama-agent may read, instead of a first prompt failing in the editor
 * with Deno's advice about a flag llama-agent does not have. A file that is not there is said to
 * be missing wherever it was looked for: outside what llama-agent may read, too, where moving it
 * would be no help.
 */
import type { CliIo } from "../command_spec.ts";
import { ConfigFileRefused, openRegularFile } from "../../config_file.ts";
import { errorMessage } from "../../error.ts";
import { checkGgufFile } from "../../model/model_file_checks.ts";
import type { ModelSource } from "../../model/model_source.ts";
import { outsidePathStatus } from "../outside_path_status.ts";
import { isOutsideGrant, readableRootsAdvice } from "../permission_error.ts";

export interface ReadableRoots {
  /** The launcher's directory (`LLAMA_AGENT_LAUNCH_DIR`). */
  readonly launchDir: string | undefined;
  readonly home: string | undefined;
}

/** Where this process may read: the launcher's directory (else the working directory) and HOME. */
export function readableRootsOf(io: Pick<CliIo, "env" | "cwd">): ReadableRoots {
  return { launchDir: io.env("LLAMA_AGENT_LAUNCH_DIR") ?? io.cwd, home: io.env("HOME") };
}

/** Why the model `--model` names cannot be read, or undefined (a Hugging Face model is fetched). */
export async function modelFileProblem(
  source: ModelSource,
  roots: ReadableRoots,
): Promise<string | undefined> {
  switch (source.kind) {
    case "hf":
      return undefined;
    case "scripted":
      return await readableFileProblem(
        `Cannot read model script "${source.path}" (--model)`,
        source.path,
        roots,
      );
    case "path": {
      const said = `Cannot load model "${source.path}" (--model)`;
      const problem = await readableFileProblem(
        said,
        source.path,
        roots,
        "check the path, or name a Hugging Face model as hf:OWNER/REPO[:FILE]",
      );
      if (problem !== undefined) return problem;
      try {
        await checkGgufFile(source.path);
        return undefined;
      } catch (error) {
        return errorMessage(error);
      }
    }
    default:
      source satisfies never;
      return undefined;
  }
}

/**
 * Why the regular file at `path` cannot be read, or undefined when it can; `said` starts the
 * message (`Cannot load ... "<path>" (--flag)`), `whenMissing` says what to do about a missing
 * file.
 */
export async function readableFileProblem(
  said: string,
  path: string,
  roots: ReadableRoots,
  whenMissing = "check the path",
): Promise<string | undefined> {
  try {
    // Checks the type before opening: opening a FIFO would wait for a writer.
    using _opened = await openRegularFile(path);
    return undefined;
  } catch (error) {
    if (error instanceof ConfigFileRefused) return `${said}: ${error.message}`;
    const missing = `${said}: no such file; ${whenMissing}`;
    if (isOutsideGrant(error)) {
      // Deno refused before the system was asked whether the file is there.
      if (await outsidePathStatus(path) === "missing") return missing;
      return `${said}: ${readableRootsAdvice(roots.launchDir, roots.home)}`;
    }
    if (error instanceof Deno.errors.NotFound) return missing;
    return `${said}: ${errorMessage(error)}`;
  }
}
