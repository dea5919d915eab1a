/**
 * What a built-in tool call does once its input is parsed, the same in every profile: the
 * profile's kit turns `Bash`'s or `shell`'s input into a `shell` operation, and the operations
 * are what runs, what the permission prompt shows, and what the client's title says.
 */

export type ToolOperation =
  | ShellOperation
  | ReadOperation
  | WriteOperation
  | EditOperation
  | GlobOperation
  | GrepOperation;

export interface ShellOperation {
  readonly capability: "shell";
  readonly command: string;
  /** Milliseconds, the default applied and clamped to the maximum. */
  readonly timeoutMs: number;
  readonly description?: string;
}

export interface ReadOperation {
  readonly capability: "fs_read";
  /** As the model gave it: absolute, or relative to the session cwd. */
  readonly path: string;
  /** 1-based first line. */
  readonly offset?: number;
  readonly limit?: number;
}

export interface WriteOperation {
  readonly capability: "fs_write";
  readonly path: string;
  readonly content: string;
}

export interface EditOperation {
  readonly capability: "fs_edit";
  readonly path: string;
  readonly oldString: string;
  readonly newString: string;
  readonly replaceAll: boolean;
}

export interface GlobOperation {
  readonly capability: "fs_glob";
  readonly pattern: string;
  /** The directory to search in; the session cwd when absent. */
  readonly path?: string;
}

export type GrepOutputMode = "content" | "files_with_matches" | "count";

export interface GrepOperation {
  readonly capability: "fs_grep";
  /** A regular expression (JavaScript syntax, close to ripgrep's for everyday patterns). */
  readonly pattern: string;
  /** A file or directory to search; the session cwd when absent. */
  readonly path?: string;
  /** Only files whose path matches this glob (`*.ts`, `**\/*.{ts,tsx}`). */
  readonly glob?: string;
  /** Only files of this type (`ts`, `py`, `rust`, ...), by extension. */
  readonly fileType?: string;
  readonly outputMode: GrepOutputMode;
  readonly ignoreCase: boolean;
  /** In `content` mode: prefix each line with its number. */
  readonly lineNumbers: boolean;
  /** In `content` mode: lines of context before and after each match. */
  readonly before: number;
  readonly after: number;
  /** `.` matches newlines and patterns may span lines. */
  readonly multiline: boolean;
  /** At most this many output lines (content) or files; everything when absent. */
  readonly headLimit?: number;
  /** Skip this many output lines or files first. */
  readonly offset: number;
}
