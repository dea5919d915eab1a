/**
 * What the model of one session has seen of each file, as Claude Code keeps it: the text a Read
 * returned or a Write / Edit left. A file changed since (by a command, the user, a linter) must be
 * read again before it is written, so that the model never overwrites changes it has not seen.
 * A file the model never saw is not refused (Claude Code 2.1.332 does not, claude-compat.md §0.8);
 * its edit is only marked as made without the file in the model's context.
 *
 * Compared by content, not by modification time: the file doors (local disk or the client's
 * buffers) give no times, and a file touched but unchanged is no reason to refuse.
 */

export const MODIFIED_SINCE_READ_MESSAGE =
  "File has been modified since read, either by the user or by a linter. " +
  "Read it again before attempting to write it.";

export class FileReadState {
  readonly #seen = new Map<string, string>();

  /** The model has now seen `content` as the text of `path` (absolute). */
  remember(path: string, content: string): void {
    this.#seen.set(path, content);
  }

  /** Whether the model has seen the file at all in this session. */
  has(path: string): boolean {
    return this.#seen.has(path);
  }

  /**
   * Whether the file changed since the model saw it, `current` being its text now. A file never
   * seen has not changed, as far as the model knows.
   */
  changedSinceSeen(path: string, current: string): boolean {
    const seen = this.#seen.get(path);
    return seen !== undefined && seen !== current;
  }
}
