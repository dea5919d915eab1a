/**
 * Whether a shell command prints nothing by design when it succeeds (`touch`, `mkdir`, `mv`):
 * Bash's `tool_response.noOutputExpected` in the `claude` profile. Claude Code 2.1.332 sends
 * `true` for `touch x` and `false` for `echo changed > ext.txt` (observed); the rule between is
 * its published source's `isSilentBashCommand`, followed here:
 *
 * - the line is split at `&&`, `||`, `|` and `;` (newlines too), outside quotes;
 * - each part's command is its first word (quotes removed, leading redirections skipped);
 * - a neutral command (`echo`, `printf`, `true`, `false`, `:`) after `||` is a fallback and
 *   does not count (`mkdir x || true`);
 * - every other part must run one of the silent commands, and at least one must: `true`.
 *
 * Anything else (a background `&`, a subshell, an assignment before the command) is not silent,
 * as there.
 */

const SILENT_COMMANDS: ReadonlySet<string> = new Set([
  "mv",
  "cp",
  "rm",
  "mkdir",
  "rmdir",
  "chmod",
  "chown",
  "chgrp",
  "touch",
  "ln",
  "cd",
  "export",
  "unset",
  "wait",
]);

/** Commands that only say something: after `||` they are a fallback, not the work. */
const FALLBACK_COMMANDS: ReadonlySet<string> = new Set(["echo", "printf", "true", "false", ":"]);

export function isSilentCommand(command: string): boolean {
  let sawCommand = false;
  for (const part of commandParts(command)) {
    const name = commandName(part.words);
    if (name === undefined) continue;
    if (part.after === "||" && FALLBACK_COMMANDS.has(name)) continue;
    sawCommand = true;
    if (!SILENT_COMMANDS.has(name)) return false;
  }
  return sawCommand;
}

type Separator = "&&" | "||" | "|" | ";" | "&";

interface CommandPart {
  /** The separator before this part; null for the first. */
  readonly after: Separator | null;
  /** Its words, quotes removed. */
  readonly words: readonly string[];
}

/** The command a part runs: its first word after any leading redirections. */
function commandName(words: readonly string[]): string | undefined {
  let index = 0;
  while (index < words.length) {
    const word = words[index]!;
    const redirection = /^[0-9]*(>>|>&|<&|&>|>|<)(.*)$/.exec(word);
    if (redirection === null) return word;
    // `> out` takes the next word as its target; `>out` and `2>&1` carry theirs.
    index += redirection[2] === "" ? 2 : 1;
  }
  return undefined;
}

function commandParts(command: string): CommandPart[] {
  const parts: CommandPart[] = [];
  let words: string[] = [];
  let word = "";
  let inWord = false;
  let after: Separator | null = null;
  let quote: "'" | '"' | null = null;
  const endWord = () => {
    if (inWord) words.push(word);
    word = "";
    inWord = false;
  };
  const endPart = (next: Separator) => {
    endWord();
    parts.push({ after, words });
    words = [];
    after = next;
  };
  for (let i = 0; i < command.length; i++) {
    const char = command[i]!;
    if (quote === "'") {
      if (char === "'") quote = null;
      else word += char;
      continue;
    }
    if (char === "\\" && i + 1 < command.length) {
      word += command[++i];
      inWord = true;
      continue;
    }
    if (quote === '"') {
      if (char === '"') quote = null;
      else word += char;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
      continue;
    }
    const two = command.slice(i, i + 2);
    if (two === "&&" || two === "||") {
      endPart(two);
      i++;
    } else if (char === "|") {
      endPart("|");
      if (command[i + 1] === "&") i++;
    } else if (char === ";" || char === "\n") {
      endPart(";");
    } else if (char === "&" && !/[<>]$/.test(word) && command[i + 1] !== ">") {
      // A background job: Claude Code reads the `&` as a part of its own, never silent.
      endPart("&");
      words.push("&");
    } else if (char === " " || char === "\t") {
      endWord();
    } else {
      word += char;
      inWord = true;
    }
  }
  endPart(";");
  return parts;
}
