/**
 * A grep's matcher process (grep_matcher.ts starts one per search): the only place a model's
 * regular expression runs. It reads frames on stdin (grep_matcher_frames.ts): the match spec as
 * JSON, then one file's bytes per frame; for each file it writes a frame on stdout, what was
 * found as JSON, before it starts on the next, so that the agent knows which file a pattern
 * stuck on. End of stdin ends it. It needs no permission: `deno run` starts it with none, and
 * the compiled binary runs it when given `GREP_MATCHER_ARGUMENT` (main.ts).
 */
import { errorMessage } from "../../error.ts";
import { encodeFrame, FrameDecoder } from "./grep_matcher_frames.ts";
import {
  BINARY,
  type FileMatch,
  fileMatcher,
  type GrepLine,
  type MatchSpec,
  NO_MATCH,
} from "./grep_text_match.ts";

/** The argument that makes the compiled binary this process (main.ts). */
export const GREP_MATCHER_ARGUMENT = "--grep-matcher-process";

/** A file's frame at most: grep reads no larger file (file_grep.ts), with room to spare. */
export const MAX_MATCHER_FRAME_BYTES = 256 * 1024 * 1024;

/** What the process writes for a file, or once, for a failure, before it exits 1. */
export type MatcherReply = FileMatch | { readonly error: string };

/** Serves one grep: returns the exit code once stdin ends or something fails. */
export async function runGrepMatcher(
  input: ReadableStream<Uint8Array>,
  write: (bytes: Uint8Array) => void,
): Promise<number> {
  const encoder = new TextEncoder();
  const encode = (value: MatcherReply) => encodeFrame(encoder.encode(JSON.stringify(value)));
  // Most files match nothing: their answer is encoded once.
  const common = new Map([[NO_MATCH, encode(NO_MATCH)], [BINARY, encode(BINARY)]]);
  const answer = (found: FileMatch) => write(common.get(found) ?? encode(found));
  const frames = new FrameDecoder(MAX_MATCHER_FRAME_BYTES);
  const decoder = new TextDecoder();
  let match: ((bytes: Uint8Array) => FileMatch) | undefined;
  try {
    for await (const chunk of input) {
      for (const frame of frames.push(chunk)) {
        if (match === undefined) match = fileMatcher(parseMatchSpec(decoder.decode(frame)));
        else answer(match(frame));
      }
    }
    if (frames.pending > 0) throw new Error("The input ended inside a frame");
    return 0;
  } catch (error) {
    write(encode({ error: errorMessage(error) }));
    return 1;
  }
}

function parseMatchSpec(text: string): MatchSpec {
  const value: unknown = JSON.parse(text);
  if (typeof value !== "object" || value === null) throw new Error("The match spec is no object");
  const get = (name: string): unknown => Reflect.get(value, name);
  const { source, flags, multiline, before, after, keepLines } = {
    source: get("source"),
    flags: get("flags"),
    multiline: get("multiline"),
    before: get("before"),
    after: get("after"),
    keepLines: get("keepLines"),
  };
  if (
    typeof source !== "string" || typeof flags !== "string" || typeof multiline !== "boolean" ||
    typeof before !== "number" || typeof after !== "number" || typeof keepLines !== "boolean"
  ) throw new Error(`Invalid match spec: ${text}`);
  return { source, flags, multiline, before, after, keepLines };
}

/** A reply frame's JSON as the process writes it; undefined for anything else. */
export function parseMatcherReply(text: string): MatcherReply | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const error: unknown = Reflect.get(value, "error");
  if (typeof error === "string") return { error };
  const searched: unknown = Reflect.get(value, "searched");
  const count: unknown = Reflect.get(value, "count");
  const lines: unknown = Reflect.get(value, "lines");
  if (typeof searched !== "boolean" || typeof count !== "number" || !Array.isArray(lines)) {
    return undefined;
  }
  const kept: GrepLine[] = [];
  for (const line of lines) {
    if (typeof line !== "object" || line === null) return undefined;
    const number: unknown = Reflect.get(line, "number");
    const text: unknown = Reflect.get(line, "text");
    const match: unknown = Reflect.get(line, "match");
    if (typeof number !== "number" || typeof text !== "string" || typeof match !== "boolean") {
      return undefined;
    }
    kept.push({ number, text, match });
  }
  return { searched, count, lines: kept };
}

/** The process itself: stdin and stdout. */
export function runGrepMatcherProcess(): Promise<number> {
  return runGrepMatcher(Deno.stdin.readable, (bytes) => {
    for (let written = 0; written < bytes.length;) {
      written += Deno.stdout.writeSync(bytes.subarray(written));
    }
  });
}

if (import.meta.main) Deno.exit(await runGrepMatcherProcess());
