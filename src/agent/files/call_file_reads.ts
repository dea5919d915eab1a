/**
 * One tool call's file door: each file is read once for the call, and the Write or Edit's check
 * before any hook, the permission prompt's diff and the change itself share that answer. Through
 * the client, every read is a request the editor may log (acpx prints each failed one), so a
 * Write of a new file asks once whether it exists, not three times.
 *
 * What was read stays true only while nothing outside the agent runs: a hook or the user (while
 * the permission prompt is open) may change the file. `othersMayHaveWritten()` is called then, and
 * a file that was there is read again, so a write never goes over changes the model has not seen
 * (file_read_state.ts). A file that was missing stays missing for the call: whatever appears in
 * its place meanwhile is a file the model never saw, which a Write may replace as Claude Code's
 * does (claude-compat.md §0.8), and an Edit of it fails as the missing file it was.
 */
import { resolve } from "node:path";
import type {
  FileAccess,
  FileReadOptions,
  FileReadResult,
  FileWriteOptions,
  FileWriteResult,
} from "./file_access.ts";

export class CallFileReads implements FileAccess {
  /** By absolute path, then by the part asked for (`line:limit`). */
  readonly #answers = new Map<string, Map<string, Promise<FileReadResult>>>();

  constructor(private readonly files: FileAccess, private readonly cwd: string) {}

  readTextFile(path: string, options: FileReadOptions = {}): Promise<FileReadResult> {
    const absolute = resolve(this.cwd, path);
    const part = partKey(options);
    const kept = this.#answers.get(absolute)?.get(part);
    if (kept !== undefined) return kept;
    const answer = this.files.readTextFile(path, options);
    this.#keep(absolute, part, answer);
    // A cancelled read says nothing about the file (and a door that throws, nothing either).
    const forget = () => this.#answers.get(absolute)?.delete(part);
    answer.then((read) => !read.ok && read.failure === "cancelled" && forget(), forget);
    return answer;
  }

  async writeTextFile(
    path: string,
    content: string,
    options?: FileWriteOptions,
  ): Promise<FileWriteResult> {
    const absolute = resolve(this.cwd, path);
    this.#answers.delete(absolute);
    const written = await this.files.writeTextFile(path, content, options);
    if (written.ok) this.#keep(absolute, partKey({}), Promise.resolve({ ok: true, content }));
    return written;
  }

  /** A hook ran or the user was asked: files that were there are read again. */
  async othersMayHaveWritten(): Promise<void> {
    for (const parts of this.#answers.values()) {
      for (const [part, answer] of parts) {
        const read = await answer;
        if (read.ok || read.failure !== "not_found") parts.delete(part);
      }
    }
  }

  #keep(absolute: string, part: string, answer: Promise<FileReadResult>): void {
    const parts = this.#answers.get(absolute) ?? new Map<string, Promise<FileReadResult>>();
    parts.set(part, answer);
    this.#answers.set(absolute, parts);
  }
}

function partKey(options: FileReadOptions): string {
  return `${options.line ?? ""}:${options.limit ?? ""}`;
}
