/**
 * `CLAUDE_ENV_FILE` (hooks.md §12.7): each SessionStart hook gets a fresh, empty file of its own,
 * `<session state dir>/session-env/sessionstart-hook-<i>.sh` (`i`: its position in the firing,
 * Claude Code's names), and the variables written there reach every later shell tool call of the
 * session, never a later hook. The files are read once, when the firing has ended.
 *
 * The agent never sources them with a shell: a hook's file is data, not code the agent runs.
 * Each line is an assignment, `NAME=value` or `export NAME=value`, its value plain, `'single'` or
 * `"double"` quoted (or pieces of each), with `$NAME`, `${NAME}` and a leading `~` expanded as
 * `sh` would expand them, at the time of the shell call, over that shell's own environment
 * (`export PATH="$PATH:/opt/bin"` works). Comments and blank lines are skipped; anything else
 * (command substitution, `$1`, a second assignment, `unset`) is ignored with one log line naming
 * the file and the line.
 */
import { dirname, join, resolve } from "node:path";
import { ConfigFileRefused, readConfigFile } from "../../config_file.ts";
import { errorMessage } from "../../error.ts";

/** A piece of an assigned value: written text, or a variable expanded when the shell runs. */
export type EnvValuePart =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "variable"; readonly name: string };

export interface EnvAssignment {
  readonly name: string;
  readonly value: readonly EnvValuePart[];
}

/** A line that sets nothing; `line` is 1-based. */
export interface IgnoredEnvLine {
  readonly line: number;
  readonly reason: string;
}

export interface ParsedEnvFile {
  readonly assignments: readonly EnvAssignment[];
  readonly ignored: readonly IgnoredEnvLine[];
}

/** More than any hook writes; a file past it is not read at all (and that is logged). */
const ENV_FILE_MAX_BYTES = 1024 * 1024;
/** Ignored lines logged one by one per file; a binary file would flood the log otherwise. */
const IGNORED_LINES_LOGGED = 20;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NAME_START = /^[A-Za-z_][A-Za-z0-9_]*/;
/** Unquoted, these would make the line a command rather than an assignment. */
const SHELL_SYNTAX = new Set([";", "&", "|", "<", ">", "(", ")"]);
const SPECIAL_PARAMETER = /[0-9?$!#*@-]/;
const NO_COMMAND_SUBSTITUTION = "command substitution is not run: write the value itself";

type Failure = { readonly reason: string };
const fail = (reason: string): Failure => ({ reason });

/** The assignments of one env file, in order, and the lines that set nothing. Pure. */
export function parseEnvFile(text: string): ParsedEnvFile {
  const assignments: EnvAssignment[] = [];
  const ignored: IgnoredEnvLine[] = [];
  for (const [index, raw] of text.split("\n").entries()) {
    const parsed = parseLine(raw.endsWith("\r") ? raw.slice(0, -1) : raw);
    if (parsed === null) continue;
    if ("reason" in parsed) ignored.push({ line: index + 1, reason: parsed.reason });
    else assignments.push(parsed);
  }
  return { assignments, ignored };
}

/** Null for a blank line or a comment. */
function parseLine(line: string): EnvAssignment | Failure | null {
  let rest = line.replace(/^[ \t]+/, "");
  if (rest === "" || rest.startsWith("#")) return null;
  // No environment can hold one: set, it would stop every later shell call from starting.
  if (rest.includes("\0")) return fail("it holds a NUL byte, which no variable can hold");
  const exported = /^export[ \t]+/.exec(rest);
  if (exported) rest = rest.slice(exported[0].length);
  const named = /^([^=\s]*)=/.exec(rest);
  if (!named) return fail("it is not an assignment: write NAME=value or export NAME=value");
  const name = named[1]!;
  if (!NAME.test(name)) {
    return fail(
      `"${name}" is not a variable name: use letters, digits and "_", not starting with a digit`,
    );
  }
  const value = parseValue(rest.slice(named[0].length));
  return "reason" in value ? value : { name, value: value.parts };
}

/** One shell word, as an assignment's value: quotes removed, expansions kept as parts. */
function parseValue(text: string): { readonly parts: EnvValuePart[] } | Failure {
  const parts: EnvValuePart[] = [];
  let literal = "";
  const push = (part: EnvValuePart) => {
    if (literal !== "") parts.push({ kind: "text", text: literal });
    literal = "";
    parts.push(part);
  };
  let i = 0;
  /** The `$` expansion whose name starts at `at`, taken as a part; `i` moves past it. */
  const expand = (at: number): Failure | undefined => {
    const ref = readReference(text, at);
    if ("reason" in ref) return ref;
    if (ref.name === null) literal += "$";
    else push({ kind: "variable", name: ref.name });
    i = ref.end;
    return undefined;
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === " " || c === "\t") break;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return fail("its ' quote is not closed on this line");
      literal += text.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      i++;
      for (;;) {
        const d = text[i];
        if (d === undefined) return fail('its " quote is not closed on this line');
        i++;
        if (d === '"') break;
        if (d === "\\" && text[i] !== undefined && '$`"\\'.includes(text[i]!)) {
          literal += text[i++];
        } else if (d === "`") {
          return fail(NO_COMMAND_SUBSTITUTION);
        } else if (d === "$") {
          const failed = expand(i);
          if (failed) return failed;
        } else {
          literal += d;
        }
      }
    } else if (c === "\\") {
      if (i + 1 >= text.length) return fail("it ends in a backslash: a value must fit on its line");
      literal += text[i + 1];
      i += 2;
    } else if (c === "$") {
      const failed = expand(i + 1);
      if (failed) return failed;
    } else if (c === "`") {
      return fail(NO_COMMAND_SUBSTITUTION);
    } else if (SHELL_SYNTAX.has(c)) {
      return fail(`"${c}" is shell syntax, which is not run: quote the value`);
    } else if (c === "~" && (i === 0 || text[i - 1] === ":")) {
      // As sh expands a tilde prefix in an assignment: at the start and after each ":".
      const user = /^~([^/:\s]*)/.exec(text.slice(i))![1]!;
      if (user !== "") return fail(`"~${user}" is not expanded: only "~" alone is`);
      push({ kind: "variable", name: "HOME" });
      i++;
    } else {
      literal += c;
      i++;
    }
  }
  const after = text.slice(i).replace(/^[ \t]+/, "");
  if (after !== "" && !after.startsWith("#")) {
    return fail("something follows the value: write one assignment per line");
  }
  if (literal !== "") parts.push({ kind: "text", text: literal });
  return { parts };
}

/**
 * A `$` expansion whose name starts at `at` (just after the `$`): a variable, a lone `$` (kept as
 * it is, as sh keeps it), or one this parser does not run.
 */
function readReference(
  text: string,
  at: number,
): { readonly name: string | null; readonly end: number } | Failure {
  const next = text[at];
  if (next === "{") {
    const close = text.indexOf("}", at + 1);
    const inner = close < 0 ? "" : text.slice(at + 1, close);
    if (close >= 0 && NAME.test(inner)) return { name: inner, end: close + 1 };
    const written = close < 0 ? text.slice(at + 1) : inner;
    return fail(`"\${${written}}" is not expanded: only $NAME and \${NAME} are`);
  }
  if (next === "(") return fail(NO_COMMAND_SUBSTITUTION);
  const name = NAME_START.exec(text.slice(at))?.[0];
  if (name !== undefined) return { name, end: at + name.length };
  if (next !== undefined && SPECIAL_PARAMETER.test(next)) {
    return fail(`"$${next}" is not expanded: only $NAME and \${NAME} are`);
  }
  return { name: null, end: at };
}

/**
 * The values `assignments` set, in order, each `$NAME` read from what was set before it, else
 * from `lookup` (the shell's own environment; an unset variable is empty, as in sh).
 */
export function resolveEnvAssignments(
  assignments: readonly EnvAssignment[],
  lookup: (name: string) => string | undefined,
): Map<string, string> {
  const set = new Map<string, string>();
  for (const { name, value } of assignments) {
    const text = value.map((part) =>
      part.kind === "text" ? part.text : set.get(part.name) ?? lookup(part.name) ?? ""
    ).join("");
    set.set(name, text);
  }
  return set;
}

/** A shell's whole environment: `base` with what `assignments` set over it. */
export function applyEnvAssignments(
  base: Readonly<Record<string, string>>,
  assignments: readonly EnvAssignment[],
): Record<string, string> {
  const set = resolveEnvAssignments(
    assignments,
    (name) => Object.hasOwn(base, name) ? base[name] : undefined,
  );
  return { ...base, ...Object.fromEntries(set) };
}

/** `<the directory of raw.jsonl>/session-env`, absolute: hooks run in the session cwd. */
export function sessionEnvDirFor(transcriptPath: string): string {
  return join(dirname(resolve(transcriptPath)), "session-env");
}

const FILE_NAME = /^sessionstart-hook-\d+\.sh$/;

/**
 * The env files of one SessionStart firing: made one per hook as the hooks start, read back
 * together once they have all ended.
 */
export class SessionStartEnvFiles {
  readonly #dir: string;
  readonly #log: (line: string) => void;
  readonly #created = new Map<number, string>();
  #dirReady: Promise<void> | undefined;

  private constructor(dir: string, log: (line: string) => void) {
    this.#dir = dir;
    this.#log = log;
  }

  /**
   * For a new firing in `dir`: the files an earlier firing left (the session's start before a
   * resume) are removed, so the directory holds only this firing's.
   */
  static async forFiring(dir: string, log: (line: string) => void): Promise<SessionStartEnvFiles> {
    try {
      // Through a link, this would remove files elsewhere; `create` refuses the link anyway.
      if ((await Deno.lstat(dir)).isSymlink) return new SessionStartEnvFiles(dir, log);
      for await (const entry of Deno.readDir(dir)) {
        if (FILE_NAME.test(entry.name)) await Deno.remove(join(dir, entry.name));
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        log(`Cannot clear the old CLAUDE_ENV_FILEs in "${dir}": ${errorMessage(error)}`);
      }
    }
    return new SessionStartEnvFiles(dir, log);
  }

  /**
   * Makes the empty file (0600, its directory 0700) of the hook at `position`: its variable, or
   * none when the file cannot be made (that is logged, and the hook runs without one).
   */
  async variableFor(position: number): Promise<Record<string, string>> {
    try {
      return { CLAUDE_ENV_FILE: await this.create(position) };
    } catch (error) {
      this.#log(
        `Cannot create a CLAUDE_ENV_FILE in "${this.#dir}": ${errorMessage(error)}; ` +
          "the SessionStart hook runs without one",
      );
      return {};
    }
  }

  /** Makes the empty file (0600, its directory 0700) of the hook at `position`; its path. */
  async create(position: number): Promise<string> {
    this.#dirReady ??= makePrivateDir(this.#dir);
    await this.#dirReady;
    const path = join(this.#dir, `sessionstart-hook-${position}.sh`);
    try {
      await Deno.remove(path);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    // createNew: never a file (or a link) someone put there since.
    (await Deno.open(path, { write: true, createNew: true, mode: 0o600 })).close();
    this.#created.set(position, path);
    return path;
  }

  /**
   * What the files say, in position order (a later file's assignment wins). A file the hook
   * removed sets nothing; one that cannot be read, or a line that is no assignment, is logged.
   */
  async read(): Promise<EnvAssignment[]> {
    const assignments: EnvAssignment[] = [];
    const inOrder = [...this.#created].sort(([a], [b]) => a - b);
    for (const [, path] of inOrder) {
      let text: string;
      try {
        await refuseLink(path);
        text = await readConfigFile(path, { maxBytes: ENV_FILE_MAX_BYTES });
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) continue;
        this.#log(
          `Cannot read CLAUDE_ENV_FILE "${path}": ${errorMessage(error)}; ` +
            "none of its variables reach the shell",
        );
        continue;
      }
      const parsed = parseEnvFile(text);
      for (const { line, reason } of parsed.ignored.slice(0, IGNORED_LINES_LOGGED)) {
        this.#log(`Ignored line ${line} of CLAUDE_ENV_FILE "${path}": ${reason}`);
      }
      const unlogged = parsed.ignored.length - IGNORED_LINES_LOGGED;
      if (unlogged > 0) {
        this.#log(`Ignored ${unlogged} more lines of CLAUDE_ENV_FILE "${path}"`);
      }
      assignments.push(...parsed.assignments);
    }
    return assignments;
  }
}

async function makePrivateDir(dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  // A link in its place (left by an earlier session's hook) would put the files, and the
  // removal of old ones, wherever it points.
  if ((await Deno.lstat(dir)).isSymlink) {
    throw new ConfigFileRefused(
      "it is a symbolic link: remove it, and the agent makes the directory",
    );
  }
  if (Deno.build.os !== "windows") await Deno.chmod(dir, 0o700);
}

/**
 * The agent made the file; a link in its place is the hook's, and following it would read
 * whatever it points at (another file of the user's) as the hook's variables.
 */
async function refuseLink(path: string): Promise<void> {
  if ((await Deno.lstat(path)).isSymlink) {
    throw new ConfigFileRefused("it is a symbolic link, not the file the agent made");
  }
}
