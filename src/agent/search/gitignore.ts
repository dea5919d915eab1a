/**
 * `.gitignore` rules as git reads them, so the search tools skip what the project keeps out of
 * version control (build output, dependencies): blank lines and `#` comments are skipped, `!`
 * re-includes, a trailing `/` matches directories only, a `/` at the start or in the middle
 * anchors the pattern to the directory of its `.gitignore` (else it matches a name at any depth
 * below it), `**` spans directories, `\` escapes. Rules of deeper files come later and so win,
 * as the last matching rule does within one file.
 *
 * A directory that is ignored is not walked, so nothing under it can be re-included (git's rule).
 */
import { compileGlob, type GlobMatcher } from "../../glob_pattern.ts";

export interface IgnoreRule {
  /** The directory of the `.gitignore`, absolute: the rule only sees paths below it. */
  readonly base: string;
  /** Tested against the path relative to `base`, `/`-separated. */
  readonly regex: GlobMatcher;
  readonly negated: boolean;
  readonly directoryOnly: boolean;
  /** The line as written, for messages and tests. */
  readonly source: string;
}

/** The rules of one `.gitignore` whose directory is `base` (absolute). */
export function parseGitignore(text: string, base: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    const rule = parseLine(rawLine, base);
    if (rule !== undefined) rules.push(rule);
  }
  return rules;
}

function parseLine(rawLine: string, base: string): IgnoreRule | undefined {
  let line = trimUnescapedTrailingSpaces(rawLine);
  if (line === "" || line.startsWith("#")) return undefined;
  let negated = false;
  if (line.startsWith("!")) {
    negated = true;
    line = line.slice(1);
  }
  let directoryOnly = false;
  if (line.endsWith("/") && !line.endsWith("\\/")) {
    directoryOnly = true;
    line = line.replace(/\/+$/, "");
  }
  if (line === "") return undefined;
  // A slash anywhere but at the end anchors the pattern to the file's directory.
  const anchored = line.includes("/");
  if (line.startsWith("/")) line = line.slice(1);
  // Braces are literal in git's patterns, unlike in the shared glob syntax.
  const glob = line.replace(/(\\.)|([{}])/g, (_all, escaped, brace) => escaped ?? `\\${brace}`);
  const body = anchored ? glob : `**/${glob}`;
  return {
    base,
    regex: compileGlob(body),
    negated,
    directoryOnly,
    source: rawLine,
  };
}

/** Trailing spaces are dropped unless escaped with `\`. */
function trimUnescapedTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line[end - 1] === " ") {
    let backslashes = 0;
    for (let i = end - 2; i >= 0 && line[i] === "\\"; i--) backslashes += 1;
    if (backslashes % 2 === 1) break;
    end -= 1;
  }
  return line.slice(0, end);
}

/**
 * Whether the last rule that matches `path` (absolute) ignores it. `rules` are in the order they
 * were read: shallower `.gitignore` files first.
 */
export function isIgnored(
  rules: readonly IgnoreRule[],
  path: string,
  isDirectory: boolean,
): boolean {
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]!;
    if (rule.directoryOnly && !isDirectory) continue;
    const relative = relativeBelow(rule.base, path);
    if (relative === undefined) continue;
    if (rule.regex.test(relative)) return !rule.negated;
  }
  return false;
}

function relativeBelow(base: string, path: string): string | undefined {
  const prefix = base.endsWith("/") ? base : base + "/";
  return path.startsWith(prefix) && path.length > prefix.length
    ? path.slice(prefix.length)
    : undefined;
}

/**
 * The rules in force in a directory: its parent's, then its own `.gitignore`'s. Made as the walk
 * goes down, so a directory's file is read once.
 */
export class IgnoreRules {
  private constructor(readonly rules: readonly IgnoreRule[]) {}

  static readonly none = new IgnoreRules([]);

  /** These rules followed by those of the `.gitignore` text found in `directory`. */
  with(text: string | undefined, directory: string): IgnoreRules {
    if (text === undefined) return this;
    const added = parseGitignore(text, directory);
    return added.length === 0 ? this : new IgnoreRules([...this.rules, ...added]);
  }

  ignores(path: string, isDirectory: boolean): boolean {
    return isIgnored(this.rules, path, isDirectory);
  }
}
