/**
 * Where Claude Code keeps a session's transcript, and so where the `claude` profile writes its
 * own: `$HOME/.claude/projects/<cwd-slug>/<session id>.jsonl` (claude-compat.md §8). Hooks get
 * this path as `transcript_path` in that profile.
 */

/**
 * The project directory's name under `~/.claude/projects`: the cwd with each `/` made `-`
 * (`/tmp/x/proj` → `-tmp-x-proj`). Only `/` was observed; every other character outside
 * `[A-Za-z0-9-]` is made `-` too, so that a cwd holding `.`, spaces or `\` still names one
 * directory (inferred, not observed).
 */
export function claudeProjectSlug(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9-]/g, "-");
}

/**
 * The transcript of session `sessionId` run in `cwd`. Without a home the path is relative (under
 * the working directory), as the state home is for `raw.jsonl`.
 */
export function claudeTranscriptPathFor(
  home: string | undefined,
  cwd: string,
  sessionId: string,
): string {
  const base = home ?? ".";
  return `${base}/.claude/projects/${claudeProjectSlug(cwd)}/${sessionId}.jsonl`;
}
