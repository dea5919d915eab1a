/**
 * Scripts a command hook runs from the project (`"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh`), or
 * a plugin's hook from its plugin (`${CLAUDE_PLUGIN_ROOT}/hooks/x.sh`), that are missing or not
 * executable: such a hook fails every time it fires. The command is read the way `/bin/sh`
 * would split it, but only as far as needed to find the word that names the program; anything
 * the shell would compute at run time (other variables, globs, `$(...)`) is left alone, so the
 * lint never guesses.
 */
import type { CommandHandlerConfig } from "../handler_config.ts";
import type { PluginLocation } from "../plugins/plugin_location.ts";
import { type ShellWord, splitShellWords } from "./shell_split.ts";

/** What the lint needs to know of a path; null when nothing is there. */
export interface FileStat {
  readonly isFile: boolean;
  /** Permission bits; null where the platform has none (then any file counts as executable). */
  readonly mode: number | null;
}
export type StatFile = (path: string) => Promise<FileStat | null>;

/**
 * The directory a script path starts from: the project (`$CLAUDE_PROJECT_DIR`, every hook), or
 * the plugin (`$CLAUDE_PLUGIN_ROOT`, set only for a plugin's own hooks).
 */
export type ScriptBase = "project" | "plugin";

/** Where each base lies for one hook: `plugin` only for a plugin's hook. */
export interface ScriptDirs {
  readonly project: string;
  readonly plugin?: PluginLocation;
}

/** The base's variable followed by `rest` (which starts with "/"), as one hook word names it. */
export interface ScriptReference {
  /** The field that holds it: `["command"]` or `["args", i]`. */
  readonly field: readonly (string | number)[];
  readonly base: ScriptBase;
  readonly rest: string;
  /** True when the script is the program itself (then it must be executable too). */
  readonly runDirectly: boolean;
}

export interface ScriptProblem {
  readonly code: "LINT_SCRIPT_MISSING" | "LINT_SCRIPT_NOT_EXECUTABLE";
  readonly message: string;
}

/** Programs that read the script named by their first argument: it need not be executable. */
const INTERPRETER =
  /^(sh|bash|zsh|dash|ksh|fish|node|nodejs|deno|bun|uv|tsx|ts-node|python[0-9.]*|ruby|perl|php|lua|Rscript|source|\.)$/;
/** Shells, whose `-c` word is a command line: one word of it is a program run directly. */
const SHELL = /^(sh|bash|zsh|dash|ksh)$/;
/** A shell's short options that include -c: the next word is a command line. */
const SHELL_COMMAND_OPTION = /^-[a-zA-Z]*c[a-zA-Z]*$/;
/** Interpreters that take a `run` subcommand before the script. */
const RUN_SUBCOMMAND = /^(deno|bun|uv)$/;
/** Options after which an interpreter runs inline code, not a file. */
const INLINE_CODE = /^-(c|e|-eval|-command)$/;
/** Words that run the next word as the program. */
const PREFIX = new Set(["exec", "command", "nohup", "time", "env"]);
const RESERVED = new Set(["!", "{", "if", "then", "else", "elif", "do", "while", "until"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

interface BaseWords {
  readonly variable: string;
  /** Stands for the base's directory while a word is being read. */
  readonly marker: string;
}
const BASES: Readonly<Record<ScriptBase, BaseWords>> = {
  project: { variable: "CLAUDE_PROJECT_DIR", marker: "\u0000" },
  plugin: { variable: "CLAUDE_PLUGIN_ROOT", marker: "\u0001" },
};
const BASE_NAMES: readonly ScriptBase[] = ["project", "plugin"];
const MARKERS = new RegExp(`[${BASE_NAMES.map((b) => BASES[b].marker).join("")}]`);

/**
 * The scripts a command handler runs from the directories of `bases`: the project's alone by
 * default; pass `"plugin"` too for a plugin's hook (in a settings hook `$CLAUDE_PLUGIN_ROOT` is
 * empty, which plugin_lint.ts reports).
 */
export function scriptReferences(
  handler: CommandHandlerConfig,
  bases: readonly ScriptBase[] = ["project"],
): ScriptReference[] {
  if (handler.args !== undefined) return execReferences(handler.command, handler.args, bases);
  const references: ScriptReference[] = [];
  for (const words of splitShell(handler.command)) {
    const reference = programScript(words.map((w) => (w.dynamic ? undefined : w.text)), bases);
    if (
      reference &&
      !references.some((r) => r.base === reference.base && r.rest === reference.rest)
    ) {
      references.push({ field: ["command"], ...reference });
    }
  }
  return references;
}

/**
 * Exec form has no shell; Claude Code substitutes path placeholders into `command` and each
 * `args` element as plain text, so a reference there is read without any quoting rules.
 */
function execReferences(
  command: string,
  args: readonly string[],
  bases: readonly ScriptBase[],
): ScriptReference[] {
  const placeholders = BASE_NAMES.map((base) => {
    const { variable, marker } = BASES[base];
    return [new RegExp(`^\\$(\\{${variable}\\}|${variable}(?![A-Za-z0-9_]))`), marker] as const;
  });
  const words = [command, ...args].map((word) =>
    placeholders.reduce((text, [placeholder, marker]) => text.replace(placeholder, marker), word)
  );
  const reference = programScript(words, bases);
  if (reference === undefined) return [];
  return [{
    field: reference.index === 0 ? ["command"] : ["args", reference.index - 1],
    ...reference,
  }];
}

/** The script of one simple command: its program, or an interpreter's script argument. */
function programScript(
  words: readonly (string | undefined)[],
  bases: readonly ScriptBase[],
): { base: ScriptBase; rest: string; runDirectly: boolean; index: number } | undefined {
  const found = programWords(words);
  if (found === undefined) return undefined;
  const program = found.command ?? found.program;
  const direct = baseRest(words[program]!, bases);
  if (direct !== undefined) return { ...direct, runDirectly: true, index: program };
  if (found.script === undefined) return undefined;
  const script = words[found.script];
  const read = script === undefined ? undefined : baseRest(script, bases);
  return read && { ...read, runDirectly: false, index: found.script };
}

/** Where a simple command names what it runs, by index into its words. */
export interface ProgramWords {
  /** The program: the first word past assignments, reserved words and prefixes (`env -i`). */
  readonly program: number;
  /** Whether the program is an interpreter (`bash`, `python3`, `deno run`, ...). */
  readonly interpreter: boolean;
  /**
   * An interpreter's script: its first plain argument (later ones may be files a hook
   * creates). Absent when it has none or runs inline code (`bash -c`).
   */
  readonly script?: number;
  /** A shell's `-c` command line that is one word (`bash -c "$DIR/x.sh"`): the program it runs. */
  readonly command?: number;
}

/**
 * Reads one simple command's words (undefined: only known at run time) as far as the program
 * and an interpreter's script; undefined when the program is not known.
 */
export function programWords(words: readonly (string | undefined)[]): ProgramWords | undefined {
  let k = 0;
  for (let word = words[k]; word !== undefined; word = words[++k]) {
    if (PREFIX.has(fileName(word))) { while (words[k + 1]?.startsWith("-")) k++; }
    else if (!RESERVED.has(word) && !ASSIGNMENT.test(word)) break;
  }
  const program = words[k];
  if (program === undefined) return undefined;
  const name = fileName(program);
  const found = { program: k, interpreter: INTERPRETER.test(name) };
  if (!found.interpreter) return found;
  let i = k + 1;
  const shell = SHELL.test(name);
  // A shell's -c may come with other short options (`bash -lc`, `sh -ec`).
  const takesCommand = (word: string) => shell && SHELL_COMMAND_OPTION.test(word);
  /** Steps over options; false at one that makes the next word inline code. */
  const skipOptions = () => {
    for (; words[i]?.startsWith("-"); i++) {
      const word = words[i] ?? "";
      if (INLINE_CODE.test(word) || takesCommand(word)) return false;
    }
    return true;
  };
  if (!skipOptions()) {
    const line = words[i + 1];
    const oneWord = takesCommand(words[i] ?? "") && line !== undefined && !/\s/.test(line);
    return oneWord ? { ...found, command: i + 1 } : found;
  }
  if (RUN_SUBCOMMAND.test(name) && words[i] === "run") {
    i++;
    if (!skipOptions()) return found;
  }
  return i < words.length ? { ...found, script: i } : found;
}

function fileName(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

/** The base and the path after its directory, when a word is exactly `<dir>/<path>`. */
function baseRest(
  word: string,
  bases: readonly ScriptBase[],
): { base: ScriptBase; rest: string } | undefined {
  const base = bases.find((b) => word.startsWith(BASES[b].marker));
  const rest = word.slice(1);
  if (base === undefined || MARKERS.test(rest)) return undefined;
  return rest.startsWith("/") && rest.replace(/\/+/g, "") !== "" ? { base, rest } : undefined;
}

/**
 * Whether a referenced script is there and, when it is the program, executable. A plugin script
 * is looked for in the plugin's directory, and the finding names the plugin; without a plugin
 * (a settings hook) there is nothing to look at.
 */
export async function checkScript(
  reference: ScriptReference,
  dirs: ScriptDirs,
  statFile: StatFile,
): Promise<ScriptProblem | undefined> {
  const plugin = reference.base === "plugin" ? dirs.plugin : undefined;
  if (reference.base === "plugin" && plugin === undefined) return undefined;
  const dir = plugin?.root ?? dirs.project;
  let info: FileStat | null;
  try {
    info = await statFile(dir.replace(/\/+$/, "") + reference.rest);
  } catch {
    // Unreadable from here (permissions): the lint cannot tell, so it says nothing.
    return undefined;
  }
  const shown = plugin === undefined
    ? `"$${BASES.project.variable}${reference.rest}"`
    : `"\${${BASES.plugin.variable}}${reference.rest}"`;
  const script = plugin === undefined
    ? `Script ${shown}`
    : `Script ${shown} of plugin "${plugin.id}"`;
  const fails = "so the hook fails every time it runs";
  if (info === null) {
    const where = plugin === undefined ? "" : ` in the plugin directory "${plugin.root}"`;
    return {
      code: "LINT_SCRIPT_MISSING",
      message: `${script} does not exist${where}, ${fails}: create it or fix the path`,
    };
  }
  if (!reference.runDirectly) return undefined;
  if (!info.isFile) {
    return {
      code: "LINT_SCRIPT_MISSING",
      message: `${script} is not a file, ${fails}: fix the path`,
    };
  }
  if (info.mode !== null && (info.mode & 0o111) === 0) {
    const relative = shellQuote(reference.rest.replace(/^\/+/, ""));
    const where = plugin === undefined ? "the project" : `the plugin directory "${plugin.root}"`;
    return {
      code: "LINT_SCRIPT_NOT_EXECUTABLE",
      message: `${script} is not executable, ${fails}: run "chmod +x ${relative}" in ${where}, ` +
        `or run it through its interpreter (e.g. "bash ${shown}")`,
    };
  }
  return undefined;
}

/** `Deno.stat`, with "nothing there" as null. */
export const statWithDeno: StatFile = async (path) => {
  try {
    const info = await Deno.stat(path);
    return { isFile: info.isFile, mode: info.mode };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return null;
    }
    throw error;
  }
};

function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./+-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * Splits a command line into simple commands of words (shell_split.ts), with
 * `$CLAUDE_PROJECT_DIR` and `$CLAUDE_PLUGIN_ROOT` replaced by their bases' markers.
 */
export function splitShell(line: string): ShellWord[][] {
  return splitShellWords(line, BASE_NAMES.map((base) => BASES[base]));
}
