/**
 * How an MCP server's failures are told and bounded: the SDK's errors made readable, whether one
 * means the connection broke, and the timeout that bounds a start.
 */
import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { errorMessage } from "../../error.ts";

/**
 * An error's message, with the SDK's schema failures (a JSON dump of zod issues) cut down to
 * "where: what" lines a user can read.
 */
export function readableError(error: unknown): string {
  const message = errorMessage(error);
  const dump = /^([^\[]*?):?\s*(\[[\s\S]*\])\s*$/.exec(message);
  if (!dump) return message;
  try {
    const issues = JSON.parse(dump[2]!) as { path?: unknown[]; message?: string }[];
    const lines = issues.slice(0, 3).map((issue) =>
      `${(issue.path ?? []).join(".") || "(the whole result)"}: ${issue.message ?? "invalid"}`
    );
    const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : "";
    return `${dump[1]}: ${lines.join("; ")}${more}`;
  } catch {
    return message;
  }
}

/** Whether the SDK failed because the connection itself is gone. */
export function connectionBroke(error: unknown): boolean {
  if (!(error instanceof SdkError)) return false;
  return [SdkErrorCode.ConnectionClosed, SdkErrorCode.SendFailed, SdkErrorCode.NotConnected]
    .includes(error.code);
}

export class StartTimeout extends Error {}

/** Rejects with StartTimeout when `work` takes longer than `ms`. */
export async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => timer = setTimeout(() => reject(new StartTimeout()), ms)),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A duration as a message says it: "30 s", "2.5 s". */
export function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** The last `count` lines of `text`, joined into one. */
export function lastLines(text: string, count: number): string {
  return text.trim().split("\n").slice(-count).join(" / ").trim();
}
