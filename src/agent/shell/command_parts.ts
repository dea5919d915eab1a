/**
 * A shell command line read as Claude Code's command checks read it (`splitCommandWithOperators`
 * in its published source): parts between `&&`, `||`, `|` and `;` (newlines too), outside
 * quotes, each a list of words with its quotes removed. A background `&` makes a part of its
 * own, named `&`. Subshells, substitutions and here-documents are not read into: a part that
 * opens one is named by what it starts with (`(cd`), which no list of commands holds.
 */

export type Separator = "&&" | "||" | "|" | ";" | "&";

export interface CommandPart {
  /** The separator before this part; null for the first. */
  readonly after: Separator | null;
  /** Its words, quotes removed. */
  readonly words: readonly string[];
}

/** The command a part runs: its first word after any leading redirections. */
export function commandName(words: readonly string[]): string | undefined {
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

export function commandParts(command: string): CommandPart[] {
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
