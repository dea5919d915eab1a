/**
 * The files the CLI writes into a project (`hooks init`'s suite, `hooks test --update`'s
 * scenario files, `hooks lint --fix`'s settings files, a case's settings override in its copy),
 * written as the agent's file tools write (local_file_access.ts, through the confined opener):
 * only inside the allowed roots, every symlink on the path resolved first (a dangling one too),
 * missing directories created through verified ones, only regular files. So neither the file nor
 * a directory made for it lands where a link leads out of the project, and a FIFO in its place
 * is refused, not waited on.
 *
 * A refusal names the link that leads out, where it leads, and what to do: the place the user
 * asked for is not where the file would go, and a message that said only "outside" would leave
 * them looking for why.
 */
import { basename, dirname, join, resolve } from "node:path";
import { replaceFileText } from "../../replace_file.ts";
import { confinePath } from "../../os/files/allowed_roots.ts";
import type { ConfinedPlace } from "../../os/files/confined_file.ts";
import { confinedOpener } from "../../os/files/confined_opener.ts";
import type { FileAccessFailure } from "./file_access.ts";
import { linkLeadingOut } from "../../os/files/link_leading_out.ts";
import { describeFsError, writeAll } from "./local_file_access.ts";

export type ConfinedWrite =
  /** `written`: the real path of the file written (a link's target for a link). */
  | { readonly ok: true; readonly written: string }
  /**
   * `message`: a whole sentence, `Cannot write "x": <reason>`; `failure` "refused" for a way
   * out of the roots.
   */
  | {
    readonly ok: false;
    readonly failure: FileAccessFailure;
    readonly reason: string;
    readonly message: string;
  };

export interface ConfinedWriteOptions {
  /** How messages name the path (default: as given). */
  readonly shown?: string;
  /** How messages name the link and where it leads (default: absolute). */
  readonly show?: (path: string) => string;
}

/** Writes `text` to `path` (created with its missing directories, or emptied and rewritten). */
export async function writeConfinedText(
  path: string,
  text: string,
  place: ConfinedPlace,
  options: ConfinedWriteOptions = {},
): Promise<ConfinedWrite> {
  const written = await writeThrough(path, text, place);
  if (!written.ok) return await failed(path, written, place, options);
  const where = await confinePath(path, place);
  return { ok: true, written: where.ok ? where.path : resolve(place.cwd, path) };
}

/**
 * Why a write of `path` would be refused as things are now (a link on the way that leads out),
 * as `writeConfinedText` would say it; undefined when it would go inside the roots. For a
 * command that checks before long work: the write itself checks again.
 */
export async function confinedWriteRefusal(
  path: string,
  place: ConfinedPlace,
  options: ConfinedWriteOptions = {},
): Promise<string | undefined> {
  const where = await confinePath(path, place);
  if (where.ok) return undefined;
  const refusal: Refusal = { ok: false, failure: "refused", reason: where.reason };
  const result = await failed(path, refusal, place, options);
  return result.ok ? undefined : result.message;
}

/**
 * Replaces the existing file `path` as an editor saves (replace_file.ts): its real path must lie
 * inside the roots, and the temporary file beside it is created as `writeConfinedText` creates
 * files.
 */
export async function replaceConfinedText(
  path: string,
  text: string,
  place: ConfinedPlace,
  options: ConfinedWriteOptions = {},
): Promise<ConfinedWrite> {
  const where = await confinePath(path, place);
  if (!where.ok) {
    const refusal: Refusal = { ok: false, failure: "refused", reason: where.reason };
    return await failed(path, refusal, place, options);
  }
  let refusedTemporary: Refusal | undefined;
  try {
    const written = await replaceFileText(where.path, text, async (temporary, content) => {
      const made = await writeThrough(temporary, content, place);
      if (made.ok) return;
      refusedTemporary = made;
      throw new Error(made.reason);
    });
    return { ok: true, written };
  } catch (error) {
    return await failed(
      path,
      refusedTemporary ?? { ok: false, failure: failureOf(error), reason: describeFsError(error) },
      place,
      options,
    );
  }
}

/**
 * Removes what is at `path` (a symlink itself, not its target) when its directory lies inside
 * the roots; nothing there is no failure.
 */
export async function removeConfinedEntry(
  path: string,
  place: ConfinedPlace,
  options: ConfinedWriteOptions = {},
): Promise<ConfinedWrite> {
  const absolute = resolve(place.cwd, path);
  const parent = await confinePath(dirname(absolute), place);
  if (!parent.ok) {
    return await failed(path, { ok: false, failure: "refused", reason: parent.reason }, place, {
      ...options,
      verb: "remove",
    });
  }
  const entry = join(parent.path, basename(absolute));
  try {
    await Deno.remove(entry);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      const reason = describeFsError(error);
      return await failed(path, { ok: false, failure: "failed", reason }, place, {
        ...options,
        verb: "remove",
      });
    }
  }
  return { ok: true, written: entry };
}

/** Why a write did not happen; `reason` completes `Cannot write "x": `. */
interface Refusal {
  readonly ok: false;
  readonly failure: FileAccessFailure;
  readonly reason: string;
}

/** Opens `path` through the confined opener and writes `text`; thrown failures become values. */
async function writeThrough(
  path: string,
  text: string,
  place: ConfinedPlace,
): Promise<{ readonly ok: true } | Refusal> {
  try {
    const opened = await confinedOpener().openWrite(path, place);
    if (!opened.ok) return { ok: false, failure: opened.failure, reason: opened.reason };
    try {
      await writeAll(opened.file, new TextEncoder().encode(text));
    } finally {
      opened.file.close();
    }
    return { ok: true };
  } catch (error) {
    return { ok: false, failure: failureOf(error), reason: describeFsError(error) };
  }
}

async function failed(
  path: string,
  refusal: Refusal,
  place: ConfinedPlace,
  options: ConfinedWriteOptions & { readonly verb?: "write" | "remove" },
): Promise<ConfinedWrite> {
  const what = `Cannot ${options.verb ?? "write"} "${options.shown ?? path}"`;
  const out = refusal.failure === "refused"
    ? await linkLeadingOut(resolve(place.cwd, path), place.roots)
    : undefined;
  if (out === undefined) {
    const { failure, reason } = refusal;
    return { ok: false, failure, reason, message: `${what}: ${reason}` };
  }
  const show = options.show ?? ((p: string) => p);
  const roots = place.roots.map((root) => `"${root}"`).join(", ");
  const reason = `"${show(out.link)}" is a symlink to "${show(out.target)}", outside the ` +
    `allowed directories (${roots}), and llama-agent writes nothing through a link that leads ` +
    "out of them: make it a directory, or a link that stays inside them";
  return { ok: false, failure: "refused", reason, message: `${what}: ${reason}` };
}

function failureOf(error: unknown): FileAccessFailure {
  return error instanceof Deno.errors.NotFound ? "not_found" : "failed";
}
