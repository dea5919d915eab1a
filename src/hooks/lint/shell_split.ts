/**
 * A command line as `/bin/sh` (or bash) splits it into simple commands of words, read only as far
 * as lint needs to find the word that names each program: quotes removed, anything the shell
 * computes at run time marked `dynamic`, redirection targets dropped (they are files, never the
 * program). Words that stand where a command would but are not one are never given as commands:
 *
 * - inside `[[ ... ]]` every word is an operand: `(`, `)`, `|`, `&&`, `||`, `<` and `>` are the
 *   conditional's own, and a regex after `=~` (`\.(js|ts)$`, `a|b`) is one word;
 * - a `case`'s patterns (`start|stop)`, `(*.js|*.ts)`) are not commands; each clause's commands
 *   are, up to its `;;`, `;&` or `;;&`, and `esac` ends it (nested cases too);
 * - an arithmetic command `(( ... ))` and an array assignment's list (`x=(a b)`) hold no command.
 *
 * Variables named in `markers` (`$CLAUDE_PROJECT_DIR`, `${CLAUDE_PLUGIN_ROOT}`) are written as
 * their marker character, so a caller can tell where a path starts.
 */

/** One word as the shell would see it; `dynamic` when its value is only known at run time. */
export interface ShellWord {
  readonly text: string;
  readonly dynamic: boolean;
}

/** A variable written as one marker character in the words (`$VAR` and `${VAR}`). */
export interface VariableMarker {
  readonly variable: string;
  readonly marker: string;
}

/** Reserved words after which the next word is in command position. */
const LEADING = new Set(["!", "{", "if", "then", "else", "elif", "do", "while", "until"]);
/** What may follow a reserved word for the shell to take it as one. */
const WORD_END = /[\s;&|()<>]|$/;

type CaseMode = "pattern" | "body";

/** The simple commands of `line`, in order; see the module comment. */
export function splitShellWords(
  line: string,
  markers: readonly VariableMarker[] = [],
): ShellWord[][] {
  const commands: ShellWord[][] = [[]];
  let text = "";
  let started = false;
  /** Holds an expansion (`$x`, `$(...)`, a backquote): its value is known at run time only. */
  let dynamic = false;
  /** Holds a glob character (`*`, `?`, `[`): a pattern, so dynamic too, but still a reserved word. */
  let glob = false;
  let quoted = false;
  let redirect = false;
  /** Inside `[[ ... ]]`. */
  let conditional = false;
  /** One entry per open `case`: reading its patterns, or a clause's commands. */
  const cases: CaseMode[] = [];

  const current = () => commands.at(-1)!;
  /** Whether every word of the current command so far is a leading reserved word. */
  const atCommandStart = () => current().every((w) => !w.dynamic && LEADING.has(w.text));
  const endWord = () => {
    if (started) {
      if (redirect) redirect = false;
      else {
        const word = { text, dynamic: dynamic || glob };
        const plain = !dynamic && !quoted;
        const first = plain && atCommandStart();
        current().push(word);
        if (conditional) {
          if (plain && text === "]]") conditional = false;
        } else if (first && text === "[[") conditional = true;
        else if (first && text === "esac" && cases.at(-1) === "body") cases.pop();
        else if (plain && text === "in" && opensCase(current())) {
          cases.push("pattern");
          reset();
          endCommand();
          return;
        }
      }
    }
    reset();
  };
  const reset = () => {
    text = "";
    started = false;
    dynamic = false;
    glob = false;
    quoted = false;
  };
  const endCommand = () => {
    endWord();
    redirect = false;
    if (current().length > 0) commands.push([]);
  };
  /** Reads `$...` at `i`; returns the index after it. */
  const expand = (i: number): number => {
    const next = line[i + 1];
    for (const { variable, marker } of markers) {
      const braced = line.startsWith(`{${variable}}`, i + 1);
      const bare = line.startsWith(variable, i + 1) &&
        !/[A-Za-z0-9_]/.test(line[i + 1 + variable.length] ?? "");
      if (braced || bare) {
        text += marker;
        return i + 1 + variable.length + (braced ? 2 : 0);
      }
    }
    if (next === "{" || next === "(") {
      dynamic = true;
      return closing(line, i + 1, next, next === "{" ? "}" : ")") + 1;
    }
    if (next !== undefined && /[A-Za-z_]/.test(next)) {
      dynamic = true;
      let j = i + 1;
      while (j < line.length && /[A-Za-z0-9_]/.test(line[j] ?? "")) j++;
      return j;
    }
    if (next !== undefined && /[0-9@*#?$!-]/.test(next)) {
      dynamic = true;
      return i + 2;
    }
    text += "$";
    return i + 1;
  };

  let i = 0;
  while (i < line.length) {
    const c = line[i] ?? "";
    if (cases.at(-1) === "pattern") {
      i = casePatterns(line, i, cases);
      continue;
    }
    if (conditional && "\n;&|()<>".includes(c)) {
      // `]]` ends the conditional also right before an operator (`]];`, `]])`).
      if (started && !dynamic && !glob && !quoted && text === "]]") endWord();
      else if (c === "\n") {
        endWord();
        i++;
      } else {
        text += c;
        started = true;
        i++;
      }
      continue;
    }
    if (c === " " || c === "\t") {
      endWord();
      i++;
    } else if (
      c === ";" && cases.at(-1) === "body" && (line[i + 1] === ";" || line[i + 1] === "&")
    ) {
      // `;;`, `;&`, `;;&` end a clause: what follows is the next clause's patterns.
      endCommand();
      cases[cases.length - 1] = "pattern";
      i += line.startsWith(";;&", i) ? 3 : 2;
    } else if (c === "(" && !started && atCommandStart() && line[i + 1] === "(") {
      // An arithmetic command `(( ... ))`: expressions, no command.
      endCommand();
      i = closing(line, i, "(", ")") + 1;
    } else if (c === "(" && started && !quoted && !glob && /^[A-Za-z_]\w*\+?=$/.test(text)) {
      // An array assignment `x=(a b)`: its list is words, not a subshell.
      dynamic = true;
      i = closing(line, i, "(", ")") + 1;
    } else if ("\n;&|()".includes(c)) {
      endCommand();
      i++;
    } else if (c === "<" || c === ">") {
      // `2>file`: the digits name a file descriptor, not a word.
      if (started && !dynamic && !glob && /^[0-9]+$/.test(text)) started = false;
      endWord();
      while (i < line.length && "<>&|".includes(line[i] ?? "")) i++;
      redirect = true;
    } else if (c === "#" && !started) {
      while (i < line.length && line[i] !== "\n") i++;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      text += line.slice(i + 1, end === -1 ? line.length : end);
      started = true;
      quoted = true;
      i = end === -1 ? line.length : end + 1;
    } else if (c === '"') {
      started = true;
      quoted = true;
      i++;
      while (i < line.length && line[i] !== '"') {
        const d = line[i] ?? "";
        if (d === "\\" && '$`"\\\n'.includes(line[i + 1] ?? "x")) {
          if (line[i + 1] !== "\n") text += line[i + 1];
          i += 2;
        } else if (d === "$") {
          i = expand(i);
        } else if (d === "`") {
          dynamic = true;
          i = closing(line, i, "`", "`") + 1;
        } else {
          text += d;
          i++;
        }
      }
      i++;
    } else if (c === "\\") {
      if (line[i + 1] !== "\n") {
        text += line[i + 1] ?? "";
        quoted = true;
      }
      started = true;
      i += 2;
    } else if (c === "$") {
      started = true;
      i = expand(i);
    } else if (c === "`") {
      started = true;
      dynamic = true;
      i = closing(line, i, "`", "`") + 1;
    } else {
      if ("*?[".includes(c) || (c === "~" && !started)) glob = true;
      text += c;
      started = true;
      i++;
    }
  }
  endCommand();
  return commands.filter((words) => words.length > 0);
}

/** Whether a command's words so far are `case WORD in` (after leading reserved words). */
function opensCase(words: readonly ShellWord[]): boolean {
  let k = 0;
  while (k < words.length && !words[k]!.dynamic && LEADING.has(words[k]!.text)) k++;
  return words.length === k + 3 && !words[k]!.dynamic && words[k]!.text === "case";
}

/**
 * Reads a `case`'s patterns from `i`, which are no commands: up to the `)` that ends them (the
 * clause's commands follow), or `esac`, which closes the case. Returns the index after them.
 */
function casePatterns(line: string, i: number, cases: CaseMode[]): number {
  while (i < line.length && /[\s;]/.test(line[i] ?? "")) i++;
  if (line.startsWith("esac", i) && WORD_END.test(line[i + 4] ?? "")) {
    cases.pop();
    return i + 4;
  }
  if (line[i] === "(") i++;
  while (i < line.length) {
    const c = line[i] ?? "";
    if (c === ")") {
      cases[cases.length - 1] = "body";
      return i + 1;
    }
    if (c === "\\") i += 2;
    else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      i = end === -1 ? line.length : end + 1;
    } else if (c === '"') {
      i++;
      while (i < line.length && line[i] !== '"') i += line[i] === "\\" ? 2 : 1;
      i++;
    } else if (c === "$" && (line[i + 1] === "(" || line[i + 1] === "{")) {
      const open = line[i + 1]!;
      i = closing(line, i + 1, open, open === "(" ? ")" : "}") + 1;
    } else if (c === "`") i = closing(line, i, "`", "`") + 1;
    else i++;
  }
  return i;
}

/** Index of the character that closes the bracket opened at `start` (or the end of the line). */
function closing(line: string, start: number, open: string, close: string): number {
  let depth = 0;
  for (let i = start; i < line.length; i++) {
    const c = line[i];
    if (c === close && (depth === 1 || open === close) && i > start) return i;
    if (c === open && open !== close) depth++;
    else if (c === close) depth--;
  }
  return line.length;
}
