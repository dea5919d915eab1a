/**
 * File tools through the client (`fs/read_text_file`, `fs/write_text_file`), used when the client
 * advertised those capabilities: the model then sees the editor's buffers, unsaved edits
 * included, and writes land in the editor. Paths are made absolute against the session cwd, as
 * ACP requires; they are not confined to the allowed roots here: the client owns its files and
 * decides what it serves.
 *
 * A check the agent makes before the request (the tool set checks paths against the roots)
 * cannot be made one step with the client's open: the client opens by name, in its own process,
 * perhaps on another machine, and ACP has no way to hand it a verified descriptor. A directory
 * on the path swapped for a symlink between the two is the client's to defend.
 */
import { resolve } from "node:path";
import { z } from "zod";
import { clientErrorMessage, type ClientRequest, isNotFoundError } from "../client_request.ts";
import type {
  FileAccess,
  FileReadOptions,
  FileReadResult,
  FileWriteOptions,
  FileWriteResult,
} from "./file_access.ts";

const ReadTextFileAnswer = z.looseObject({ content: z.string() });

export interface ClientFileAccessOptions {
  readonly sessionId: string;
  readonly cwd: string;
  readonly request: ClientRequest;
}

export class ClientFileAccess implements FileAccess {
  constructor(private readonly options: ClientFileAccessOptions) {}

  async readTextFile(path: string, options: FileReadOptions = {}): Promise<FileReadResult> {
    const { sessionId, cwd, request } = this.options;
    let answer: unknown;
    try {
      answer = await request("fs/read_text_file", {
        sessionId,
        path: resolve(cwd, path),
        ...(options.line === undefined ? {} : { line: options.line }),
        ...(options.limit === undefined ? {} : { limit: options.limit }),
      }, { signal: options.signal });
    } catch (error) {
      return {
        ok: false,
        failure: options.signal?.aborted
          ? "cancelled"
          : isNotFoundError(error)
          ? "not_found"
          : "failed",
        message: `Cannot read "${path}": ${clientErrorMessage(error)}`,
      };
    }
    const parsed = ReadTextFileAnswer.safeParse(answer);
    if (!parsed.success) {
      return {
        ok: false,
        failure: "failed",
        message: `Cannot read "${path}": the client's answer has no "content" string`,
      };
    }
    return { ok: true, content: parsed.data.content };
  }

  async writeTextFile(
    path: string,
    content: string,
    options: FileWriteOptions = {},
  ): Promise<FileWriteResult> {
    const { sessionId, cwd, request } = this.options;
    try {
      await request("fs/write_text_file", { sessionId, path: resolve(cwd, path), content }, {
        signal: options.signal,
      });
    } catch (error) {
      return {
        ok: false,
        failure: options.signal?.aborted ? "cancelled" : "failed",
        message: `Cannot write "${path}": ${clientErrorMessage(error)}`,
      };
    }
    return { ok: true };
  }
}
