/**
 * The persisted sessions: one directory per session under the state directory, each holding its
 * `raw.jsonl`. `session/list` reads the first records of each; nothing else is indexed.
 */
import type { SessionInfo } from "@agentclientprotocol/sdk";
import { dirname } from "node:path";
import { errorMessage } from "../error.ts";
import { readTranscript, type TranscriptReadResult } from "./transcript_reader.ts";
import { transcriptPathFor } from "./transcript_path.ts";

const TITLE_LENGTH = 80;

/**
 * The sessions whose transcripts are readable, newest first, optionally only those of `cwd`. A
 * damaged line costs a transcript nothing here either; one that cannot be read at all is logged
 * and left out, and the others are listed.
 */
export async function listSessions(
  env: (name: string) => string | undefined,
  filter: { readonly cwd?: string | null },
  log: (line: string) => void,
): Promise<SessionInfo[]> {
  const sessionsDir = dirname(dirname(transcriptPathFor("x", env)));
  const found: (SessionInfo & { readonly mtime: number })[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(sessionsDir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  for (const entry of entries) {
    if (!entry.isDirectory) continue;
    const path = transcriptPathFor(entry.name, env);
    let read: TranscriptReadResult;
    let mtime: number;
    try {
      read = await readTranscript(path);
      mtime = (await Deno.stat(path)).mtime?.getTime() ?? 0;
    } catch (error) {
      log(`Cannot list the session in "${dirname(path)}": ${errorMessage(error)}`);
      continue;
    }
    if (!read.ok) {
      if (read.reason === "invalid") log(`Cannot list a session: ${read.message}`);
      continue;
    }
    if (read.transcript.session.sessionId !== entry.name) continue;
    const { session, records } = read.transcript;
    if (filter.cwd && session.cwd !== filter.cwd) continue;
    const firstPrompt = records.find((r) => r.type === "prompt");
    found.push({
      sessionId: session.sessionId,
      cwd: session.cwd,
      ...(session.additionalDirectories.length > 0
        ? { additionalDirectories: session.additionalDirectories }
        : {}),
      title: firstPrompt?.type === "prompt" ? titleOf(firstPrompt.text) : null,
      updatedAt: new Date(mtime).toISOString(),
      mtime,
    });
  }
  found.sort((a, b) => b.mtime - a.mtime);
  return found.map(({ mtime: _, ...info }) => info);
}

function titleOf(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > TITLE_LENGTH ? `${line.slice(0, TITLE_LENGTH - 1)}…` : line;
}
