/**
 * Bash-only syntax in an inline hook command. Hooks run with `/bin/sh -c`, and `/bin/sh` is dash
 * on Debian and Ubuntu: there `[[ ... ]]` is "not found" (exit 127, so a check never holds), and
 * arrays, `function name`, `${x[@]}` and `<<<` are syntax errors (exit 2, which blocks on an
 * event that can be blocked). Written for bash, such a hook works on the author's Mac and fails
 * on every Linux machine. Quoted text is not code and is skipped, and so are here-document
 * bodies: they are input to a program (`node <<'JS'`), not shell code.
 */
import { BASH_BUILTINS, programWords } from "./command_path_lint.ts";
import { HOOK_EVENTS, type HookEventName } from "../event_table.ts";

export interface BashOnlyConstruct {
  /** As the message shows it, e.g. `"[[ ... ]]"`. */
  readonly shown: string;
  /** What dash does with it: 127 "not found", 2 a syntax error. */
  readonly exitCode: 2 | 127;
}

interface Rule {
  readonly shown: string;
  readonly exitCode: 2 | 127;
  /** Tested on the text with every quoted part blanked, or with only single quotes blanked. */
  readonly on: "bare" | "unsingled";
  readonly pattern: RegExp;
}

const START = String.raw`(?:^|[\s;&|(!])`;
const RULES: readonly Rule[] = [
  { shown: '"[[ ... ]]"', exitCode: 127, on: "bare", pattern: new RegExp(`${START}\\[\\[(?=\\s)`) },
  { shown: '"=~"', exitCode: 127, on: "bare", pattern: /\s=~\s/ },
  {
    shown: '"function name"',
    exitCode: 2,
    on: "bare",
    pattern: new RegExp(`${START}function\\s+[A-Za-z_][\\w.-]*`),
  },
  {
    shown: 'arrays ("x=(...)")',
    exitCode: 2,
    on: "bare",
    pattern: new RegExp(`${START}[A-Za-z_]\\w*\\+?=\\(`),
  },
  {
    shown: '"${x[...]}" / "${!x}"',
    exitCode: 2,
    on: "unsingled",
    pattern: /\$\{[#!]?[A-Za-z_]\w*\[|\$\{![A-Za-z_]/,
  },
  { shown: '"<<<"', exitCode: 2, on: "bare", pattern: /<<</ },
];

/** The bash-only constructs of a command line, in the order of the rules. */
export function bashOnlySyntax(commandLine: string): BashOnlyConstruct[] {
  const command = blankHereDocuments(commandLine);
  const { bare, unsingled } = blankQuotes(command);
  const found: BashOnlyConstruct[] = RULES
    .filter((rule) => rule.pattern.test(rule.on === "bare" ? bare : unsingled))
    .map(({ shown, exitCode }) => ({ shown, exitCode }));
  for (const word of programWords(command)) {
    if (BASH_BUILTINS.has(word) && word !== "[[" && word !== "]]") {
      found.push({ shown: `"${word}"`, exitCode: 127 });
    }
  }
  return found;
}

export function bashOnlyMessage(
  constructs: readonly BashOnlyConstruct[],
  event: HookEventName,
): string {
  const syntaxError = constructs.some((c) => c.exitCode === 2);
  const what = constructs.map((c) => c.shown).join(", ");
  const effect = syntaxError
    ? `it stops with a syntax error (exit 2), ${
      HOOK_EVENTS[event].blockable ? `which blocks on "${event}"` : "reported as a hook error"
    }`
    : `it fails with "not found" (exit 127, a non-blocking error), so its check never holds`;
  return `This command uses bash-only syntax (${what}), but hooks run with /bin/sh, which is ` +
    `dash on Debian and Ubuntu: there ${effect}; write it for POSIX sh ("[ ... ]", "case", ` +
    `"."), or put it in a script that starts with "#!/usr/bin/env bash"`;
}

/** The text with quoted parts replaced by spaces (and `#` comments dropped). */
function blankQuotes(text: string): { bare: string; unsingled: string } {
  let bare = "";
  let unsingled = "";
  let i = 0;
  let wordStart = true;
  while (i < text.length) {
    const c = text[i] ?? "";
    if (c === "\\") {
      bare += "  ";
      unsingled += "  ";
      i += 2;
      wordStart = false;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      const stop = end === -1 ? text.length : end + 1;
      const blank = " ".repeat(stop - i);
      bare += blank;
      unsingled += blank;
      i = stop;
      wordStart = false;
    } else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const stop = Math.min(j + 1, text.length);
      bare += " ".repeat(stop - i);
      unsingled += text.slice(i, stop);
      i = stop;
      wordStart = false;
    } else if (c === "#" && wordStart) {
      while (i < text.length && text[i] !== "\n") i++;
    } else {
      bare += c;
      unsingled += c;
      wordStart = /[\s;&|()]/.test(c);
      i++;
    }
  }
  return { bare, unsingled };
}

/** `<<WORD`, `<<-WORD`, `<<'WORD'`, `<<"WORD"`, `<<\WORD` (not the here-string `<<<`). */
const HERE_DOCUMENT = /(?<!<)<<(-?)[ \t]*(?:'([^'\n]*)'|"([^"\n]*)"|\\?([A-Za-z0-9_.-]+))/y;

/**
 * The text with every here-document body, and its closing delimiter line, replaced by spaces
 * (line breaks kept, so offsets and lines stay). A body runs from the line after its `<<` to the
 * first line that is exactly its delimiter (after leading tabs, for `<<-`), or to the end.
 */
function blankHereDocuments(text: string): string {
  let out = "";
  let quote: "'" | '"' | null = null;
  const pending: { readonly delimiter: string; readonly stripTabs: boolean }[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] ?? "";
    if (quote !== null) {
      if (c === "\\" && quote === '"') {
        out += text.slice(i, i + 2);
        i += 2;
        continue;
      }
      if (c === quote) quote = null;
      out += c;
      i++;
    } else if (c === "\\") {
      out += text.slice(i, i + 2);
      i += 2;
    } else if (c === "'" || c === '"') {
      quote = c;
      out += c;
      i++;
    } else if (c === "<" && text.startsWith("<<", i) && text[i + 2] !== "<") {
      HERE_DOCUMENT.lastIndex = i;
      const m = HERE_DOCUMENT.exec(text);
      if (m === null) {
        out += "<<";
        i += 2;
        continue;
      }
      pending.push({ delimiter: m[2] ?? m[3] ?? m[4] ?? "", stripTabs: m[1] === "-" });
      out += m[0];
      i += m[0].length;
    } else if (c === "\n" && pending.length > 0) {
      out += c;
      i++;
      for (const { delimiter, stripTabs } of pending.splice(0)) {
        while (i < text.length) {
          const end = text.indexOf("\n", i);
          const stop = end === -1 ? text.length : end;
          const line = text.slice(i, stop);
          out += " ".repeat(line.length) + (end === -1 ? "" : "\n");
          i = end === -1 ? text.length : end + 1;
          if ((stripTabs ? line.replace(/^\t+/, "") : line) === delimiter) break;
        }
      }
    } else {
      out += c;
      i++;
    }
  }
  return out;
}
