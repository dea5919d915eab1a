/**
 * Commands a hook runs by bare name (`jq`, `prettier`) that are not on `PATH`: `/bin/sh` says
 * "not found" and exits 127 every time the hook fires, a non-blocking error that is easy to miss.
 * Only the word that names the program of each simple command is looked at, and only when it is
 * literal; words that stand where a command would but are none (`[[ $f =~ \.(js|ts)$ ]]`, a
 * `case`'s `start|stop)`) are not programs (shell_split.ts). A command line with a here-document
 * is left alone, since its body is not commands the way a split reads it, and so is one that sets
 * `PATH` or sources a file, since the `PATH` it runs with is not the one lint can ask about.
 * A name the line itself looks up (`command -v x && x`, `which x`) is a guarded use: the author
 * expects it may be missing.
 */
import { errorMessage } from "../../error.ts";
import { runCommand } from "../../os/process/command_runner.ts";
import type { CommandHandlerConfig } from "../handler_config.ts";
import { splitShell } from "./script_path_lint.ts";

/** What the shell finds for a name: a program file, a builtin (or keyword, function), or none. */
export type CommandKind = "file" | "builtin" | "missing";

/** Looks names up as `/bin/sh` would; a name it could not tell about is absent from the map. */
export type FindCommands = (names: readonly string[]) => Promise<ReadonlyMap<string, CommandKind>>;

/** POSIX sh's (and dash's) reserved words and special and regular builtins. */
const SHELL_WORDS = new Set(
  ("! { } case do done elif else esac fi for if in then until while : . [ alias bg break cd " +
    "chdir command continue echo eval exec exit export false fc fg getopts hash jobs kill " +
    "local printf pwd read readonly return set shift test times trap true type ulimit umask " +
    "unalias unset wait").split(" "),
);
/** Bash builtins sh lacks: bash_syntax_lint.ts reports them, not as missing programs. */
export const BASH_BUILTINS = new Set(
  "source declare typeset let shopt mapfile readarray pushd popd disown [[ ]]".split(" "),
);
/** Words that run the next word as the program. */
const PREFIX = new Set(["exec", "command", "nohup", "time", "env"]);
/** Reserved words after which the next word is the program. */
const LEADING = new Set(["!", "{", "if", "then", "else", "elif", "do", "while", "until"]);
/** Reserved words whose following words are not a program (`for x in a b`, `case`). */
const NOT_A_COMMAND = new Set(["for", "case", "select", "}", "fi", "done", "esac", "in"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
const COMMAND_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.+-]*$/;

/** The literal program words of a shell command line, in order, without repeats. */
export function programWords(command: string): string[] {
  return commandWords(command).programs;
}

/** Programs whose arguments are names looked up, not run (`command -v jq`, `which jq`). */
const LOOKUPS = new Set(["which", "type", "hash"]);
const PATH_ASSIGNMENT = /^PATH\+?=/;

interface CommandWords {
  /** The literal program words, in order, without repeats. */
  readonly programs: string[];
  /** Names the line asks the shell about: a guard such as `command -v jq && jq ...`. */
  readonly lookedUp: ReadonlySet<string>;
  /** It sets `PATH` or sources a file (which may): names are found on a `PATH` lint cannot see. */
  readonly changesPath: boolean;
}

function commandWords(command: string): CommandWords {
  const functions = new Set(
    [
      ...command.matchAll(/(?:^|[\s;&|(){}])(?:function\s+)?([A-Za-z_][\w.-]*)\s*\(\s*\)/g),
      ...command.matchAll(/(?:^|[\s;&|(){}])function\s+([A-Za-z_][\w.-]*)/g),
    ].map((m) => m[1] ?? ""),
  );
  const programs: string[] = [];
  const lookedUp = new Set<string>();
  let changesPath = false;
  for (const simple of splitShell(command)) {
    if (simple.some((word) => PATH_ASSIGNMENT.test(word.text))) changesPath = true;
    let k = 0;
    let lookup = false;
    while (k < simple.length) {
      const word = simple[k]!;
      if (!word.dynamic && LEADING.has(word.text)) k++;
      else if (ASSIGNMENT.test(word.text)) k++;
      // `function name {`: neither word is a program; the body's first word is.
      else if (!word.dynamic && word.text === "function") k += 2;
      else if (!word.dynamic && PREFIX.has(word.text)) {
        k++;
        while (simple[k]?.text.startsWith("-") || ASSIGNMENT.test(simple[k]?.text ?? "")) {
          if (word.text === "command" && /^-[A-Za-z]*[vV]/.test(simple[k]?.text ?? "")) {
            lookup = true;
          }
          k++;
        }
        if (lookup) break;
      } else break;
    }
    const program = simple[k];
    if (program === undefined || program.dynamic || NOT_A_COMMAND.has(program.text)) continue;
    if (lookup || LOOKUPS.has(program.text)) {
      for (const word of simple.slice(lookup ? k : k + 1)) {
        if (!word.dynamic && !word.text.startsWith("-")) lookedUp.add(word.text);
      }
      if (lookup) continue;
    }
    if (program.text === "." || program.text === "source") changesPath = true;
    if (functions.has(program.text) || programs.includes(program.text)) continue;
    programs.push(program.text);
  }
  return { programs, lookedUp, changesPath };
}

export interface ProgramNames {
  /** With `args`, `command` is spawned without a shell: builtins are not programs there. */
  readonly exec: boolean;
  readonly names: readonly string[];
}

/** The bare names a command hook needs `PATH` to find. */
export function bareProgramNames(handler: CommandHandlerConfig): ProgramNames {
  if (handler.args !== undefined) {
    const bare = COMMAND_NAME.test(handler.command) ? [handler.command] : [];
    return { exec: true, names: bare };
  }
  const line = handler.command;
  // A here-document's body is input to a program, which a split cannot tell from commands.
  // (`[[ ... ]]` operands, `case` patterns, `(( ... ))` and array lists the split itself knows.)
  if (/<</.test(line)) return { exec: false, names: [] };
  const { programs, lookedUp, changesPath } = commandWords(line);
  if (changesPath) return { exec: false, names: [] };
  const names = programs.filter((word) =>
    COMMAND_NAME.test(word) && !SHELL_WORDS.has(word) && !BASH_BUILTINS.has(word) &&
    !lookedUp.has(word)
  );
  return { exec: false, names };
}

/** Why a bare name of a hook will not run, or undefined when the shell finds it. */
export function commandProblem(
  name: string,
  kind: CommandKind | undefined,
  exec: boolean,
): string | undefined {
  if (kind === undefined || kind === "file") return undefined;
  if (exec) {
    return kind === "builtin"
      ? `"${name}" is a shell builtin, not a program: with "args" the command runs without a ` +
        `shell, so the hook cannot start; drop "args" to run it with /bin/sh`
      : `Program "${name}" is not on PATH, so the hook cannot start and fails every time it ` +
        `runs: install it, or give its full path in "command"`;
  }
  if (kind === "builtin") return undefined;
  return `Command "${name}" is not on PATH, so the hook fails with "${name}: not found" ` +
    `(exit 127, a non-blocking error) every time it runs: install it, or write its full path ` +
    `(hooks get the agent's PATH)`;
}

/**
 * Asks `/bin/sh` itself (`command -v`), once for every name: what it finds is what a hook's
 * shell finds, and the agent may not read the `PATH` directories. A shell that cannot be asked
 * tells nothing, and so nothing is reported.
 */
export function shellCommandLookup(options: {
  readonly path: string | undefined;
  readonly cwd: string;
  readonly log?: (line: string) => void;
}): FindCommands {
  return async (names) => {
    const asked = names.filter((name) => COMMAND_NAME.test(name));
    if (asked.length === 0) return new Map();
    const script = 'for n; do if p=$(command -v -- "$n" 2>/dev/null); then ' +
      'case $p in /*) echo "file $n";; *) echo "builtin $n";; esac; ' +
      'else echo "missing $n"; fi; done';
    try {
      const result = await runCommand({
        commandLine: { kind: "exec", command: "/bin/sh", args: ["-c", script, "sh", ...asked] },
        cwd: options.cwd,
        env: options.path === undefined ? {} : { PATH: options.path },
        timeoutMs: 5000,
      });
      if (result.kind !== "exited" || result.exitCode !== 0) return new Map();
      const found = new Map<string, CommandKind>();
      for (const line of result.stdout.text.split("\n")) {
        const [kind, name] = [line.slice(0, line.indexOf(" ")), line.slice(line.indexOf(" ") + 1)];
        if (kind === "file" || kind === "builtin" || kind === "missing") found.set(name, kind);
      }
      return found;
    } catch (error) {
      options.log?.(`hooks lint: cannot look commands up on PATH: ${errorMessage(error)}`);
      return new Map();
    }
  };
}
