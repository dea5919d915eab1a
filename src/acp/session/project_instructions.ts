/**
 * The project's instruction files (`AGENTS.md`, and `CLAUDE.md` under the claude profile: the
 * profile's `instructionFiles`), read from the session cwd into the system prompt, as peer agents
 * do. Read when the session starts and kept for it (a load reads them again), never re-read per
 * turn, so the system prompt stays in the model's cached prefix.
 *
 * Every byte is read before every first token, so all the files together are cut at
 * `MAX_PROJECT_INSTRUCTIONS_BYTES`, at a line end; the model is told where, the user gets a
 * notice. They are read as configuration is (config_file.ts): a FIFO, a device or a directory
 * named AGENTS.md is refused without being opened, and a link is followed only while it stays in
 * the project (the session cwd or one of its additional directories). The file tools may reach
 * `$HOME` too, but only when a tool call asks, under the permission policy; instructions are
 * read unasked and sent to the model, so an `AGENTS.md` of a cloned repository that links to
 * `~/.aws/credentials` is not read. Claude Code's `InstructionsLoaded` is not fired: the source
 * document lists it as never emitted.
 */
import { resolve } from "node:path";
import {
  confinePath,
  isInsideRoots,
  realPathAllowingMissing,
} from "../../os/files/allowed_roots.ts";
import { ConfigFileRefused, openRegularFile, readAtMost } from "../../config_file.ts";
import { errorMessage } from "../../error.ts";
import type { AgentSession } from "./agent_session.ts";

/** 16 KiB, about 4k tokens: a few seconds of prompt on a CPU with a small model. */
export const MAX_PROJECT_INSTRUCTIONS_BYTES = 16 * 1024;

export interface ProjectInstructions {
  /** One text per file read, in the profile's order, for the system prompt. */
  readonly forModel: readonly string[];
  /** What was read, for the log: one line; undefined when there was nothing. */
  readonly summary: string | undefined;
  /** For the user: files cut or left out, files that could not be read. */
  readonly notices: readonly string[];
}

export interface InstructionsPlace {
  /** The session cwd, resolved. */
  readonly cwd: string;
  /** With the cwd, the project: where a link may lead. */
  readonly additionalDirectories?: readonly string[];
  readonly roots: readonly string[];
}

type FileRead =
  | { readonly kind: "absent" }
  | { readonly kind: "problem"; readonly message: string }
  | { readonly kind: "read"; readonly path: string; readonly bytes: Uint8Array; size: number };

export async function readProjectInstructions(
  place: InstructionsPlace,
  fileNames: readonly string[],
  maxBytes: number = MAX_PROJECT_INSTRUCTIONS_BYTES,
): Promise<ProjectInstructions> {
  const forModel: string[] = [];
  const notices: string[] = [];
  const said: string[] = [];
  const readPaths = new Map<string, string>();
  let left = maxBytes;
  for (const name of fileNames) {
    const read = await readInstructionsFile(name, place, left);
    if (read.kind === "absent") continue;
    if (read.kind === "problem") {
      notices.push(read.message);
      said.push(`${name} not read`);
      continue;
    }
    const same = readPaths.get(read.path);
    if (same !== undefined) {
      said.push(`${name} is ${same}`);
      continue;
    }
    readPaths.set(read.path, name);
    const kept = cutAtLineEnd(read.bytes, left);
    const text = new TextDecoder().decode(kept).replace(/^\uFEFF/, "").trimEnd();
    left -= kept.byteLength;
    const cut = kept.byteLength < read.size;
    if (cut) notices.push(cutNotice(name, read.size, kept.byteLength, maxBytes));
    said.push(
      cut ? `${name} (${kept.byteLength} of ${read.size} bytes)` : `${name} (${read.size} bytes)`,
    );
    if (text.trim() === "") continue;
    forModel.push(
      `Instructions from ${name}:\n\n${text}` +
        (cut ? `\n\n[${name} is cut here, at the size limit: read the file for the rest]` : ""),
    );
  }
  // A project without instruction files is the common case: nothing to say.
  const summary = said.length === 0
    ? undefined
    : `Project instructions: ${said.join(", ")} from "${place.cwd}"`;
  return { forModel, summary, notices };
}

/**
 * Reads a session's instruction files, once per session object (a live session loaded again
 * keeps what it read), logs what was read and why anything was not, and returns the notices for
 * the caller to send once the client knows the session.
 */
export async function readSessionInstructions(session: AgentSession): Promise<string[]> {
  if (session.projectInstructions !== undefined) return [];
  const read = await readProjectInstructions(session, session.toolKit.profile.instructionFiles);
  session.projectInstructions = read.forModel;
  if (read.summary !== undefined) session.log(`${read.summary} (session "${session.id}")`);
  for (const notice of read.notices) session.log(notice);
  return [...read.notices];
}

async function readInstructionsFile(
  name: string,
  place: InstructionsPlace,
  left: number,
): Promise<FileRead> {
  const path = `${place.cwd}/${name}`;
  const problem = (reason: string): FileRead => ({
    kind: "problem",
    message: `Cannot read the project instructions in "${path}": ${reason}; the session goes ` +
      "on without them",
  });
  const confined = await confinePath(path, place);
  if (!confined.ok) return problem(confined.reason);
  const project = await projectDirs(place);
  if (!isInsideRoots(confined.path, project)) {
    return problem(
      `it resolves to "${confined.path}", which is outside the project (${
        project.map((dir) => `"${dir}"`).join(", ")
      }), and a link out of the project is not followed for instructions the model reads ` +
        "unasked; copy the file into the project instead of linking to it",
    );
  }
  try {
    using opened = await openRegularFile(confined.path);
    // One byte past what is left tells a file that does not fit from one that just fits.
    const bytes = await readAtMost((into) => opened.file.read(into), left + 1, {
      sizeHint: opened.info.size,
    });
    const size = Math.max(opened.info.size, bytes.byteLength);
    return { kind: "read", path: confined.path, bytes, size };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { kind: "absent" };
    if (error instanceof ConfigFileRefused) return problem(error.message);
    if (error instanceof Deno.errors.PermissionDenied) return problem("permission denied");
    return problem(errorMessage(error));
  }
}

/** The session cwd and its additional directories, each with its links followed. */
async function projectDirs(place: InstructionsPlace): Promise<string[]> {
  const dirs: string[] = [];
  for (const dir of [place.cwd, ...(place.additionalDirectories ?? [])]) {
    const real = await realPathAllowingMissing(resolve(place.cwd, dir));
    if (real.ok && !dirs.includes(real.path)) dirs.push(real.path);
  }
  return dirs;
}

/**
 * At most `limit` bytes of `bytes`, ending at a line end when one is in them (a newline byte is
 * never inside a UTF-8 sequence), else at a character boundary.
 */
export function cutAtLineEnd(bytes: Uint8Array, limit: number): Uint8Array {
  if (bytes.byteLength <= limit) return bytes;
  const head = bytes.subarray(0, limit);
  const lineEnd = head.lastIndexOf(0x0a);
  if (lineEnd >= 0) return head.subarray(0, lineEnd + 1);
  let end = limit;
  // Back off continuation bytes (10xxxxxx), then the lead byte whose sequence they began.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return head.subarray(0, end);
}

function cutNotice(name: string, size: number, kept: number, maxBytes: number): string {
  const limit = `${maxBytes / 1024} KiB`;
  const shown = kept === 0
    ? "the model does not see it: the files before it filled the limit"
    : `the model sees its first ${kept} bytes`;
  return `${name} is cut: the project instructions are read up to ${limit} in all, and it has ` +
    `${size} bytes, so ${shown}. Shorten it, or move details into files it tells the model to read`;
}
