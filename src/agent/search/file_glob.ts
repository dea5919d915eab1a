/**
 * Finding files by name: a glob pattern (glob_pattern.ts syntax) matched against the paths below
 * a directory, relative to it, through the confined walk (file_walk.ts). Files only, oldest
 * first by modification time (ties by path), so the newest are at the end where a cut list
 * still shows its length; the leading directories of a pattern without wildcards (`src/**`) are
 * where the walk starts, and a pattern without `**` is not walked deeper than it reaches.
 */
import type { GlobOperation } from "../tools/tool_operation.ts";
import { resolve } from "node:path";
import { compileGlob, hasGlobMagic } from "../../glob_pattern.ts";
import { byModifiedTime, resolveSearchStart, walkFiles, type WalkSummary } from "./file_walk.ts";

export interface GlobRequest {
  readonly cwd: string;
  readonly roots: readonly string[];
  readonly pattern: string;
  /** The directory the pattern is relative to: absolute or relative to the cwd; the cwd when absent. */
  readonly path?: string;
  /** At most this many files are returned. */
  readonly limit: number;
  readonly signal?: AbortSignal;
  /** Entries the walk may look at (file_walk.ts's default when absent). */
  readonly maxEntries?: number;
}

export type GlobResult =
  | {
    readonly ok: true;
    /** Absolute paths, at most `limit`. */
    readonly files: string[];
    /** More files matched than were returned. */
    readonly truncated: boolean;
    /** Every file that matched. */
    readonly total: number;
    /** The walk stopped at its entry cap: files beyond it were not looked at. */
    readonly walkCapped: boolean;
  }
  /** A whole sentence for the model. */
  | { readonly ok: false; readonly message: string };

/** A Glob call's operation, run where the call runs (its cwd, roots and signal). */
export function globOperation(
  operation: GlobOperation,
  place: Pick<GlobRequest, "cwd" | "roots" | "signal">,
  limit: number,
): Promise<GlobResult> {
  return globFiles({
    cwd: place.cwd,
    roots: place.roots,
    pattern: operation.pattern,
    ...(operation.path === undefined ? {} : { path: operation.path }),
    limit,
    ...(place.signal === undefined ? {} : { signal: place.signal }),
  });
}

export async function globFiles(request: GlobRequest): Promise<GlobResult> {
  const place = { cwd: request.cwd, roots: request.roots };
  const searchDir = await resolveSearchStart(request.path, place);
  if (!searchDir.ok) return { ok: false, message: searchDir.message };
  if (!searchDir.isDirectory) {
    return {
      ok: false,
      message: `Cannot search "${request.path}": it is a file, not a directory ` +
        "(give the directory to search in as path, and the file name in the pattern)",
    };
  }
  if (request.pattern.trim() === "") {
    return { ok: false, message: 'Cannot search: the pattern is empty (try "**/*")' };
  }
  const { base, rest } = splitPattern(request.pattern);
  const start = await resolveSearchStart(resolve(searchDir.path, base), place);
  if (!start.ok) {
    // A pattern whose fixed directories do not exist matches nothing; outside the roots, say so.
    return start.missing
      ? { ok: true, files: [], truncated: false, total: 0, walkCapped: false }
      : { ok: false, message: start.message };
  }
  if (!start.isDirectory) {
    const matched = rest === "" ? [start.path] : [];
    return { ok: true, files: matched, truncated: false, total: matched.length, walkCapped: false };
  }
  const regex = compileGlob(rest);
  const matches: { path: string; mtimeMs: number }[] = [];
  const walk: WalkSummary = await walkFiles(start.path, {
    ...place,
    signal: request.signal,
    maxEntries: request.maxEntries,
    ...(rest.includes("**") ? {} : { maxDepth: rest.split("/").length }),
  }, (file) => {
    if (regex.test(file.relative)) matches.push({ path: file.path, mtimeMs: file.modifiedTime() });
  });
  if (walk.cancelled) return { ok: false, message: "The search was cancelled" };
  matches.sort(byModifiedTime);
  const limit = Math.max(0, request.limit);
  return {
    ok: true,
    files: matches.slice(0, limit).map((match) => match.path),
    truncated: matches.length > limit,
    total: matches.length,
    walkCapped: walk.capped,
  };
}

/**
 * The leading segments without wildcards (where the walk can start) and the rest, matched
 * against paths below them. A pattern without any wildcard is all base: one file, looked up.
 */
function splitPattern(pattern: string): { base: string; rest: string } {
  const normalized = pattern.replace(/^(?:\.\/)+/, "");
  const absolute = normalized.startsWith("/");
  const segments = normalized.split("/").filter((segment, i) => segment !== "" || i === 0);
  if (absolute) segments.shift();
  let fixed = 0;
  while (
    fixed < segments.length && !hasGlobMagic(segments[fixed]!) && !/\\/.test(segments[fixed]!)
  ) {
    fixed += 1;
  }
  const prefix = segments.slice(0, fixed).join("/");
  return {
    base: absolute ? `/${prefix}` : prefix === "" ? "." : prefix,
    rest: segments.slice(fixed).join("/"),
  };
}
