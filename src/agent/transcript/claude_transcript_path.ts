/**
 * Where Claude Code keeps a session's transcript, and so where the `claude` profile writes its
 * own: `$HOME/.claude/projects/<cwd-slug>/<session id>.jsonl` (claude-compat.md §8). Hooks get
 * this path as `transcript_path` in that profile.
 */
import { isAbsolute } from "node:path";

/** Claude Code's longest slug before it shortens one; a directory name holds 255 bytes. */
const MAX_SLUG_LENGTH = 200;

/**
 * The project directory's name under `~/.claude/projects`: the cwd with each `/` made `-`
 * (`/tmp/x/proj` → `-tmp-x-proj`). Only `/` was observed; every other character outside
 * `[A-Za-z0-9-]` is made `-` too, so that a cwd holding `.`, spaces or `\` still names one
 * directory, and a slug over 200 characters is cut there and given a hash of the whole cwd, so
 * that a deep cwd still names a directory the file system accepts (both inferred, not observed;
 * the hash is our own, not Claude Code's).
 */
export function claudeProjectSlug(cwd: string): string {
  const slug = cwd.replace(/[^A-Za-z0-9-]/g, "-");
  if (slug.length <= MAX_SLUG_LENGTH) return slug;
  return `${slug.slice(0, MAX_SLUG_LENGTH)}-${djb2(cwd).toString(36)}`;
}

/**
 * The home the transcript goes under: `$HOME` when it is an absolute path. A relative one would
 * name one file for the agent, which resolves it against its own directory, and another for the
 * hooks, which run in the project (and put `.claude/projects` inside whichever that is).
 */
export function claudeTranscriptHome(home: string | undefined): string | undefined {
  return home !== undefined && isAbsolute(home) ? home : undefined;
}

/** The transcript of session `sessionId` run in `cwd`; `home` absolute (`claudeTranscriptHome`). */
export function claudeTranscriptPathFor(home: string, cwd: string, sessionId: string): string {
  return `${home}/.claude/projects/${claudeProjectSlug(cwd)}/${sessionId}.jsonl`;
}

function djb2(text: string): number {
  let hash = 5381;
  for (let i = 0; i < text.length; i++) hash = ((hash << 5) + hash + text.charCodeAt(i)) | 0;
  return Math.abs(hash);
}
