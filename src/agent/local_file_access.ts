/**
 * File tools on the agent's own disk, for clients without the `fs` capabilities. Every path is
 * confined to the allowed roots first (allowed_roots.ts) and the resolved path is the one
 * touched.
 *
 * Reads are UTF-8 only and bounded in size: the model cannot use a binary file, and a huge one
 * would only fill its context (the shell tool can page through it). Writes replace the whole file
 * in place (keeping its mode and links) and create missing parent directories, as Claude Code's
 * Write does; the parents are inside the roots because the check resolves them.
 */
import { dirname } from "node:path";
import { errorMessage } from "../error.ts";
import { confinePath } from "./allowed_roots.ts";
import {
  type FileAccess,
  type FileAccessFailure,
  type FileReadOptions,
  type FileReadResult,
  type FileWriteOptions,
  type FileWriteResult,
  sliceLines,
} from "./file_access.ts";

export const DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024;

export interface LocalFileAccessOptions {
  /** The session cwd: relative paths start here. */
  readonly cwd: string;
  /** Resolved allowed roots (see `allowedRoots`). */
  readonly roots: readonly string[];
  readonly maxReadBytes?: number;
}

export class LocalFileAccess implements FileAccess {
  constructor(private readonly options: LocalFileAccessOptions) {}

  async readTextFile(path: string, options: FileReadOptions = {}): Promise<FileReadResult> {
    const fail = (failure: FileAccessFailure, reason: string): FileReadResult => ({
      ok: false,
      failure,
      message: `Cannot read "${path}": ${reason}`,
    });
    const confined = await confinePath(path, this.options);
    if (!confined.ok) return fail("refused", confined.reason);
    const maxBytes = this.options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES;
    let bytes: Uint8Array;
    try {
      const info = await Deno.stat(confined.path);
      if (info.isDirectory) return fail("failed", "it is a directory");
      if (info.size > maxBytes) {
        return fail(
          "failed",
          `it is ${formatBytes(info.size)}, over the ${formatBytes(maxBytes)} limit for reading ` +
            "a file whole (use the shell tool to look at parts of it)",
        );
      }
      bytes = await Deno.readFile(confined.path, { signal: options.signal });
    } catch (error) {
      return fail(failureOf(error, options.signal), describeFsError(error));
    }
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      return fail("failed", "it is not a UTF-8 text file");
    }
    return { ok: true, content: sliceLines(text, options.line, options.limit) };
  }

  async writeTextFile(
    path: string,
    content: string,
    options: FileWriteOptions = {},
  ): Promise<FileWriteResult> {
    const fail = (failure: FileAccessFailure, reason: string): FileWriteResult => ({
      ok: false,
      failure,
      message: `Cannot write "${path}": ${reason}`,
    });
    const confined = await confinePath(path, this.options);
    if (!confined.ok) return fail("refused", confined.reason);
    try {
      await Deno.mkdir(dirname(confined.path), { recursive: true });
      await Deno.writeTextFile(confined.path, content, { signal: options.signal });
    } catch (error) {
      return fail(failureOf(error, options.signal), describeFsError(error));
    }
    return { ok: true };
  }
}

function failureOf(error: unknown, signal: AbortSignal | undefined): FileAccessFailure {
  if (signal?.aborted) return "cancelled";
  return error instanceof Deno.errors.NotFound ? "not_found" : "failed";
}

/** Deno's messages repeat the path and the syscall; the model needs the cause. */
function describeFsError(error: unknown): string {
  if (error instanceof Deno.errors.NotFound) return "no such file";
  if (error instanceof Deno.errors.PermissionDenied) return "permission denied";
  if (error instanceof Deno.errors.IsADirectory) return "it is a directory";
  if (error instanceof Deno.errors.NotADirectory) return "a part of the path is not a directory";
  if (error instanceof DOMException && error.name === "AbortError") return "cancelled";
  return errorMessage(error);
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
