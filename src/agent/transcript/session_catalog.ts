/**
 * The persisted sessions: one directory per session under the state directory, each holding its
 * `raw.jsonl`. `session/list` reads the first records of each, up to the first prompt (the
 * title) and at most `TRANSCRIPT_START_BYTES`, so its cost does not grow with the sessions'
 * histories; nothing else is indexed.
 */
import type { SessionInfo } from "@agentclientprotocol/sdk";
import { dirname } from "node:path";
import { errorMessage } from "../../error.ts";
import { readTranscriptStart, type TranscriptStartResult } from "./transcript_reader.ts";
import { sessionsDirFor, transcriptPathFor } from "./transcript_path.ts";
import { sessionTitle } from "./session_title.ts";

const LIST_CONCURRENCY = 8;

/**
 * The sessions whose transcripts are readable, newest first, optionally only those of `cwd`. A
 * damaged line costs a transcript nothing here either; one that cannot be read at all (not a
 * regular file, no session record) is logged and left out, and the others are listed. One too
 * large to load is listed: its load says why.
 */
export async function listSessions(
  env: (name: string) => string | undefined,
  filter: { readonly cwd?: string | null },
  log: (line: string) => void,
): Promise<SessionInfo[]> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(sessionsDirFor(env)));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  const waiting = entries.filter((entry) => entry.isDirectory).map((entry) => entry.name);
  const found: ListedSession[] = [];
  // A few reads at once: each is a handful of small file operations, mostly waiting.
  const reader = async () => {
    for (let id = waiting.pop(); id !== undefined; id = waiting.pop()) {
      const listed = await listedSession(id, env, filter, log);
      if (listed) found.push(listed);
    }
  };
  await Promise.all(Array.from({ length: LIST_CONCURRENCY }, reader));
  found.sort((a, b) => b.mtime - a.mtime);
  return found.map(({ mtime: _, ...info }) => info);
}

type ListedSession = SessionInfo & { readonly mtime: number };

/** The session in directory `id`, or undefined when it is not listed (a log line says why). */
async function listedSession(
  id: string,
  env: (name: string) => string | undefined,
  filter: { readonly cwd?: string | null },
  log: (line: string) => void,
): Promise<ListedSession | undefined> {
  const path = transcriptPathFor(id, env);
  let read: TranscriptStartResult;
  try {
    read = await readTranscriptStart(path, (record) => record.type === "prompt");
  } catch (error) {
    log(`Cannot list the session in "${dirname(path)}": ${errorMessage(error)}`);
    return undefined;
  }
  if (!read.ok) {
    if (read.reason === "invalid") log(`Cannot list a session: ${read.message}`);
    return undefined;
  }
  const { session, records } = read.transcript;
  if (session.sessionId !== id) return undefined;
  if (filter.cwd && session.cwd !== filter.cwd) return undefined;
  const firstPrompt = records.find((r) => r.type === "prompt");
  return {
    sessionId: session.sessionId,
    cwd: session.cwd,
    ...(session.additionalDirectories.length > 0
      ? { additionalDirectories: session.additionalDirectories }
      : {}),
    title: firstPrompt?.type === "prompt" ? sessionTitle(firstPrompt.prompt) : null,
    updatedAt: new Date(read.modifiedMs).toISOString(),
    mtime: read.modifiedMs,
  };
}
