/**
 * What stands before a command's name in a sub-command and is not the command: the reserved
 * words that open or close a compound command (`if`, `then`, `do`, `{`, `!`, `fi`, ...), the
 * `time` prefix, `VAR=value` assignments and redirections. An `if` rule is tested against the
 * command from its name on (`FOO=1 git push` runs `git push`).
 */
const RESERVED = "if then else elif do while until coproc fi done esac".split(" ");
const KEYWORD_WORDS = `(?:${RESERVED.join("|")}|time(?:\\s+-p)?|[{}!])(?:\\s+|$)`;
const KEYWORD = new RegExp(KEYWORD_WORDS, "y");
const KEYWORDS_ONLY = new RegExp(`^(?:${KEYWORD_WORDS})+$`);
const ASSIGNMENT = /[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/y;
const REDIRECTION = /[0-9]*(?:&>>|&>|>>|>&|>\||<&|<>|>|<)\s*/y;

/** Whether a sub-command is reserved words only (`fi`, `done`, `}`): nothing runs there. */
export function isKeywordsOnly(part: string): boolean {
  return KEYWORDS_ONLY.test(part);
}

/** A sub-command from its command name on: keywords, assignments and redirections before it go. */
export function commandWords(part: string): string {
  let at = 0;
  for (;;) {
    const keyword = matchAt(KEYWORD, part, at);
    if (keyword !== undefined) {
      at = keyword;
      continue;
    }
    const prefix = matchAt(ASSIGNMENT, part, at) ?? matchAt(REDIRECTION, part, at);
    if (prefix === undefined) return part.slice(at);
    at = wordEnd(part, prefix);
    while (part[at] === " ") at += 1;
  }
}

/** Where a sticky pattern's match at `at` ends, or undefined when it does not match there. */
function matchAt(pattern: RegExp, text: string, at: number): number | undefined {
  pattern.lastIndex = at;
  return pattern.test(text) ? pattern.lastIndex : undefined;
}

/** Where the word that continues at `from` ends: at a blank outside quotes and parentheses. */
function wordEnd(text: string, from: number): number {
  let depth = 0;
  let i = from;
  while (i < text.length) {
    const char = text[i];
    if (char === "\\") {
      i += 2;
    } else if (char === "'" || char === '"' || char === "`") {
      i = closingQuote(text, i + 1, char);
    } else if (char === "(") {
      depth += 1;
      i += 1;
    } else if (char === ")") {
      depth = Math.max(0, depth - 1);
      i += 1;
    } else if ((char === " " || char === "\t") && depth === 0) {
      return i;
    } else {
      i += 1;
    }
  }
  return text.length;
}

/** The position after the quote that closes one opened just before `from`. */
function closingQuote(text: string, from: number, quote: string): number {
  let i = from;
  while (i < text.length && text[i] !== quote) i += quote !== "'" && text[i] === "\\" ? 2 : 1;
  return Math.min(i + 1, text.length);
}

/**
 * A sub-command with its quoting removed as the shell removes it (`\git "push"` runs
 * `git push`), substitutions left as written. Quotes that hide nothing still make another
 * name, so a rule is tested against this form too.
 */
export function unquoted(part: string): string {
  let out = "";
  let i = 0;
  while (i < part.length) {
    const char = part[i] ?? "";
    if (char === "\\") {
      out += part[i + 1] ?? "";
      i += 2;
    } else if (char === "'") {
      const close = part.indexOf("'", i + 1);
      const stop = close === -1 ? part.length : close;
      out += part.slice(i + 1, stop);
      i = stop + 1;
    } else if (char === "$" && part[i + 1] === "'") {
      // `$'…'`: a backslash escapes the next character, `\'` included.
      i += 2;
      while (i < part.length && part[i] !== "'") {
        if (part[i] === "\\") i += 1;
        out += part[i] ?? "";
        i += 1;
      }
      i += 1;
    } else if (char === '"') {
      const end = closingQuote(part, i + 1, '"');
      const stop = part[end - 1] === '"' && end - 1 > i ? end - 1 : end;
      out += part.slice(i + 1, stop).replace(/\\([$`"\\])/g, "$1");
      i = end;
    } else if (char === "`") {
      const end = closingQuote(part, i + 1, "`");
      out += part.slice(i, end);
      i = end;
    } else {
      out += char;
      i += 1;
    }
  }
  return out.trim();
}

/**
 * Commands that run the rest of their line as another command, with the options that take a
 * value (so the value is not taken for the command's name). A rule about `git push` must also
 * hold for `sudo git push`.
 */
const WRAPPERS: Readonly<Record<string, readonly string[]>> = {
  sudo: ["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"],
  doas: ["-u", "-C"],
  env: ["-u", "-C", "-S", "--unset", "--chdir"],
  command: [],
  builtin: [],
  exec: ["-a"],
  nohup: [],
  nice: ["-n", "--adjustment"],
  ionice: ["-c", "-n", "-p"],
  timeout: ["-s", "-k", "--signal", "--kill-after"],
  stdbuf: ["-i", "-o", "-e"],
  time: ["-f", "-o", "--format", "--output"],
  chronic: [],
  setsid: [],
  xargs: ["-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter"],
};

/** The commands wrappers at the start of an unquoted sub-command run, innermost last. */
export function wrappedCommands(plain: string): string[] {
  const found: string[] = [];
  let words = plain.split(/\s+/).filter((word) => word !== "");
  for (let depth = 0; depth < 8; depth++) {
    const takesValue = WRAPPERS[words[0] ?? ""];
    if (takesValue === undefined) break;
    const wrapper = words[0];
    let i = 1;
    while (i < words.length) {
      const word = words[i] ?? "";
      if (word === "--") {
        i += 1;
        break;
      }
      if (takesValue.includes(word)) i += 2;
      else if (
        word.startsWith("-") || (wrapper === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word))
      ) {
        i += 1;
      } else if (wrapper === "timeout" && /^[0-9.]+[smhd]?$/.test(word)) {
        // timeout's duration comes before the command.
        i += 1;
        break;
      } else break;
    }
    words = words.slice(i);
    if (words.length === 0) break;
    found.push(words.join(" "));
  }
  return found;
}
