/**
 * The sub-commands a shell command line runs, for `if` rules (claude-compat.md §7): a rule that
 * misses one of them is a guard walked around, so this errs towards finding more. It reads the
 * line as `sh`/`bash` would, as far as that decides where commands are:
 *
 * - separators `;`, newline, `&&`, `||`, `|`, `|&` and a background `&` (but not the `&` of a
 *   redirection: `2>&1`, `>&2`, `&>log`), outside quotes and escapes;
 * - subshells `( … )`, and the insides of `$( … )`, `` ` … ` ``, `<( … )` and `>( … )`, nested;
 * - a backslash-newline joins lines; unquoted blanks between words read as one space;
 * - comments (an unquoted `#` starting a word, to the end of the line) and here-document
 *   bodies are no commands, though an unquoted here-document's `$( … )` runs;
 * - each part is also given from its command name on (without `{`, `!`, the keywords `if then
 *   else elif do while until time`, closing words, `VAR=value` assignments, redirections) and
 *   with its quotes removed (`\git "push"` runs `git push`), besides as written.
 *
 * One pass over the text (a nested substitution or a here-document body is read once more), so
 * the time grows with the length of the line, never faster; a line nested deeper than any
 * person writes is split roughly, into more parts than the shell runs, never fewer.
 */

import { commandWords, isKeywordsOnly, unquoted, wrappedCommands } from "./command_words.ts";

/** The sub-commands of a command line, each trimmed; see the module comment for the rules. */
export function splitCommand(command: string): string[] {
  const raw: string[] = [];
  try {
    new CommandScanner(command, raw, 0).commands(null, false);
  } catch (error) {
    if (!(error instanceof TooDeep)) throw error;
    raw.splice(0, raw.length, ...roughSplit(command));
  }
  const parts: string[] = [];
  for (const part of raw) {
    const bare = commandWords(part);
    const plain = unquoted(bare);
    if (bare !== "") parts.push(bare);
    if (plain !== bare && plain !== "") parts.push(plain);
    // The command a wrapper runs (`sudo git push`, `env A=1 nohup git push`) is tested too.
    for (const inner of wrappedCommands(plain)) parts.push(inner);
    // As written too, for a rule about what precedes the command (`Bash(FOO=1 *)`).
    if (part !== bare && !isKeywordsOnly(part)) parts.push(part);
  }
  return parts;
}

/** Nesting deeper than this is no command a person writes; it is split roughly instead. */
const MAX_DEPTH = 200;

class TooDeep extends Error {}

/** Every run of text between operator characters, quoted or not, comment or not. */
function roughSplit(command: string): string[] {
  return command.split(/[;&|()\n`$<>]+/).map((part) => part.trim()).filter((part) => part !== "");
}

interface PendingHereDoc {
  readonly delimiter: string;
  /** `<<-`: leading tabs are stripped from the body's lines, the delimiter line's included. */
  readonly stripTabs: boolean;
  /** An unquoted delimiter: the body is expanded, so its command substitutions run. */
  readonly expands: boolean;
}

/**
 * One sub-command as it is read: blanks between words become one space, and a redirection
 * written against a word (`git push>/dev/null`) is set apart from it, as the shell reads it.
 */
class PartBuilder {
  private text = "";
  private wordStart = 0;
  atWordStart = true;
  /** The last unquoted character: after `>` or `<`, a `&` or `|` belongs to the redirection. */
  last = "";

  constructor(private readonly out: string[]) {}

  isEmpty(): boolean {
    return this.text === "";
  }

  /** Ordinary word characters. */
  plain(piece: string): void {
    this.startWord();
    this.text += piece;
    this.last = piece.at(-1) ?? this.last;
  }

  /** Quoted, escaped or substituted text: part of the word, no operator. */
  quoted(piece: string): void {
    this.startWord();
    this.text += piece;
    this.last = "";
  }

  /** An operator character of a redirection, or a whole here-document operator. */
  redirection(piece: string): void {
    const operator = "<>&|".includes(this.last) && this.last !== "";
    const fd = /^[0-9]+$/.test(this.text.slice(this.wordStart));
    if (!this.atWordStart && !operator && !fd) this.blank();
    this.plain(piece);
  }

  blank(): void {
    if (!this.atWordStart) this.text += " ";
    this.atWordStart = true;
    this.last = " ";
  }

  end(): void {
    const part = this.text.trim();
    if (part !== "") this.out.push(part);
    this.text = this.last = "";
    this.atWordStart = true;
  }

  private startWord(): void {
    if (this.atWordStart) this.wordStart = this.text.length;
    this.atWordStart = false;
  }
}

class CommandScanner {
  private i = 0;
  private readonly pendingHereDocs: PendingHereDoc[] = [];

  constructor(
    private readonly text: string,
    private readonly out: string[],
    /** How many substitutions, subshells and groups this text is inside. */
    private depth: number,
  ) {}

  /**
   * Sub-commands up to `closer` (the `)` of a subshell or substitution; null: the end), each
   * pushed to `out` when it ends; leaves the position after the closer. In `arithmetic`
   * (`(( … ))`, `$(( … ))`), `<<` is a shift, not a here-document.
   */
  commands(closer: ")" | null, arithmetic: boolean): void {
    const { text } = this;
    const part = new PartBuilder(this.out);
    let caseDepth = 0;
    while (this.i < text.length) {
      const i = this.i;
      const char = text[i] ?? "";
      const next = text[i + 1];
      if (char === "\\") {
        // A backslash-newline joins the lines; any other backslash quotes the next character.
        if (next !== "\n") part.quoted(text.slice(i, i + 2));
        this.i += 2;
      } else if (char === " " || char === "\t") {
        part.blank();
        this.i += 1;
      } else if (char === "'") {
        part.quoted(this.singleQuoted(i + 1));
      } else if (char === "$" && next === "'") {
        part.quoted(this.ansiCQuoted());
      } else if (char === '"') {
        part.quoted(this.doubleQuoted());
      } else if (char === "`") {
        part.quoted(this.backquoted(false));
      } else if ((char === "$" || char === "<" || char === ">") && next === "(") {
        part.quoted(this.substitution());
      } else if (char === "#" && part.atWordStart) {
        const newline = text.indexOf("\n", i);
        this.i = newline === -1 ? text.length : newline;
      } else if (char === "(") {
        part.end();
        this.group(i + 1);
      } else if (char === ")") {
        part.end();
        this.i += 1;
        // A `case` pattern's `)` ends no substitution: the command after it is a sub-command.
        if (closer === ")" && caseDepth === 0) return;
      } else if (char === ";" || char === "\n") {
        part.end();
        this.i += 1;
        if (char === "\n") this.hereDocBodies();
      } else if (char === "|" && part.last !== ">") {
        part.end();
        this.i += next === "|" || next === "&" ? 2 : 1;
      } else if (char === "&" && next === "&") {
        part.end();
        this.i += 2;
      } else if (char === "&" && next !== ">" && part.last !== ">" && part.last !== "<") {
        part.end(); // a background job: what follows is another command
        this.i += 1;
      } else if (char === "<" && next === "<" && !arithmetic) {
        part.redirection(this.hereDocOperator());
      } else if (char === "<" || char === ">" || char === "&" || char === "|") {
        // `>`, `2>&1`, `&>log`, `>|`: a redirection, never a separator.
        part.redirection(char);
        this.i += 1;
      } else {
        if (part.isEmpty()) {
          const word = /^[A-Za-z]+(?=[\s;&|()]|$)/.exec(text.slice(i, i + 5))?.[0];
          if (word === "case") caseDepth += 1;
          if (word === "esac" && caseDepth > 0) caseDepth -= 1;
        }
        part.plain(char);
        this.i += 1;
      }
    }
    part.end();
  }

  /** `( … )` or `(( … ))` from `start`, just after the first `(`; its commands are pushed. */
  private group(start: number): void {
    if (++this.depth > MAX_DEPTH) throw new TooDeep();
    if (this.text[start] === "(") {
      this.i = start + 1;
      this.commands(")", true);
      if (this.text[this.i] === ")") this.i += 1;
      else this.commands(")", false);
    } else {
      this.i = start;
      this.commands(")", false);
    }
    this.depth -= 1;
  }

  /** `$( … )`, `$(( … ))`, `<( … )` or `>( … )` at the position; its commands are pushed. */
  private substitution(): string {
    const start = this.i;
    this.group(start + 2);
    return this.text.slice(start, this.i);
  }

  /** `'…'` whose text starts at `from`: no escapes inside. */
  private singleQuoted(from: number): string {
    const close = this.text.indexOf("'", from);
    const start = this.i;
    this.i = close === -1 ? this.text.length : close + 1;
    return this.text.slice(start, this.i);
  }

  /** `$'…'`, where a backslash escapes the next character (`\'` included). */
  private ansiCQuoted(): string {
    const { text } = this;
    const start = this.i;
    let i = start + 2;
    while (i < text.length && text[i] !== "'") i += text[i] === "\\" ? 2 : 1;
    this.i = Math.min(i + 1, text.length);
    return text.slice(start, this.i);
  }

  /** `"…"`: its substitutions run, so their commands are pushed. */
  private doubleQuoted(): string {
    const { text } = this;
    let quoted = '"';
    this.i += 1;
    while (this.i < text.length) {
      const i = this.i;
      const char = text[i];
      if (char === '"') {
        this.i += 1;
        return quoted + char;
      }
      if (char === "\\") {
        if (text[i + 1] !== "\n") quoted += text.slice(i, i + 2);
        this.i += 2;
      } else if (char === "`") {
        quoted += this.backquoted(true);
      } else if (char === "$" && text[i + 1] === "(") {
        quoted += this.substitution();
      } else {
        quoted += char;
        this.i += 1;
      }
    }
    return quoted;
  }

  /**
   * `` `…` ``: a backslash before `` ` ``, `\`, `$` (and, inside double quotes, `"`) is removed,
   * which is how a backquoted command nests another; the result is read as a command line.
   */
  private backquoted(inDoubleQuotes: boolean): string {
    const { text } = this;
    const start = this.i;
    let inner = "";
    let i = start + 1;
    for (; i < text.length && text[i] !== "`"; i++) {
      const char = text[i] ?? "";
      const next = text[i + 1] ?? "";
      if (char === "\\" && ("`\\$".includes(next) || (inDoubleQuotes && next === '"'))) {
        inner += next;
        i += 1;
      } else {
        inner += char;
      }
    }
    this.i = Math.min(i + 1, text.length);
    if (this.depth + 1 > MAX_DEPTH) throw new TooDeep();
    new CommandScanner(inner, this.out, this.depth + 1).commands(null, false);
    return text.slice(start, this.i);
  }

  /** `<<WORD`, `<<-WORD`, `<<'WORD'`, `<<"WORD"`, `<<\WORD`; `<<<` (a here-string) is not one. */
  private hereDocOperator(): string {
    const { text } = this;
    const start = this.i;
    if (text[start + 2] === "<") {
      this.i = start + 3;
      return "<<<";
    }
    let i = start + 2;
    const stripTabs = text[i] === "-";
    if (stripTabs) i += 1;
    while (text[i] === " " || text[i] === "\t") i += 1;
    let delimiter = "";
    let quoted = false;
    while (i < text.length && !/[\s;&|()<>]/.test(text[i] ?? "")) {
      const char = text[i] ?? "";
      if (char === "'" || char === '"') {
        const close = text.indexOf(char, i + 1);
        const stop = close === -1 ? text.length : close;
        delimiter += text.slice(i + 1, stop);
        quoted = true;
        i = stop + 1;
      } else if (char === "\\") {
        delimiter += text[i + 1] ?? "";
        quoted = true;
        i += 2;
      } else {
        delimiter += char;
        i += 1;
      }
    }
    i = Math.min(i, text.length);
    if (delimiter !== "") this.pendingHereDocs.push({ delimiter, stripTabs, expands: !quoted });
    this.i = i;
    return text.slice(start, i);
  }

  /** After a newline: the bodies of the here-documents its line opened, up to each delimiter. */
  private hereDocBodies(): void {
    const { text } = this;
    for (const doc of this.pendingHereDocs.splice(0)) {
      const bodyStart = this.i;
      let lineStart = bodyStart;
      let bodyEnd = text.length;
      let after = text.length;
      while (lineStart < text.length) {
        const newline = text.indexOf("\n", lineStart);
        const lineEnd = newline === -1 ? text.length : newline;
        const line = text.slice(lineStart, lineEnd);
        if ((doc.stripTabs ? line.replace(/^\t+/, "") : line) === doc.delimiter) {
          bodyEnd = lineStart;
          after = Math.min(lineEnd + 1, text.length);
          break;
        }
        lineStart = lineEnd + 1;
      }
      if (doc.expands) {
        const body = new CommandScanner(text.slice(bodyStart, bodyEnd), this.out, this.depth);
        body.substitutionsOnly();
      }
      this.i = after;
    }
  }

  /** An expanded here-document body: only its `$( … )` and `` ` … ` `` hold commands. */
  private substitutionsOnly(): void {
    const { text } = this;
    while (this.i < text.length) {
      const char = text[this.i];
      if (char === "\\") this.i += 2;
      else if (char === "`") this.backquoted(false);
      else if (char === "$" && text[this.i + 1] === "(") this.substitution();
      else this.i += 1;
    }
  }
}
