/**
 * The text every match of a pattern must hold, as ripgrep finds one to skip files fast: a file
 * without it cannot match, so grep does not send it to the matcher process at all (most files
 * in a search do not match). Only what is certain counts: a run of plain ASCII characters at the
 * top level of a pattern with no `|` at all, none of them optional or repeated, in a pattern
 * that does not ignore case. Anything the scan does not fully understand ends it, keeping what
 * it found before; a pattern with nothing certain has no required text.
 */

/** Shorter required texts rule out too few files to be worth the look. */
const MIN_LITERAL_LENGTH = 3;

/** Escapes that stand for the character after the backslash, with or without the `u` flag. */
const ESCAPED_LITERALS = new Set([..."./()[]{}*+?|^$\\"]);
/** Escapes that stand for one character of a class: no literal, but the scan goes on. */
const CLASS_ESCAPES = new Set([..."dDwWsSnrtfv"]);
/** Escapes that match no character (word boundaries): a run goes on across them. */
const ZERO_WIDTH_ESCAPES = new Set([..."bB"]);
const SYNTAX = new Set([..."\\^$.|?*+()[]{}"]);

/** The longest text every match must contain, if there is one worth looking for. */
export function requiredLiteral(
  source: string,
  flags: string,
  minLength = MIN_LITERAL_LENGTH,
): string | undefined {
  if (flags.includes("i") || source.includes("|")) return undefined;
  let best = "";
  let run = "";
  /** The run's last character came from the atom just read: a quantifier takes it back. */
  let lastIsLiteral = false;
  const endRun = () => {
    if (run.length > best.length) best = run;
    run = "";
  };
  let i = 0;
  while (i < source.length) {
    const char = source[i]!;
    if (char === "*" || char === "+" || char === "?" || char === "{") {
      const length = quantifierLength(source, i);
      if (length === 0) break;
      if (lastIsLiteral) run = run.slice(0, -1);
      endRun();
      lastIsLiteral = false;
      i += length;
      if (source[i] === "?") i += 1;
      continue;
    }
    lastIsLiteral = false;
    if (char === "\\") {
      const next = source[i + 1] ?? "";
      if (ESCAPED_LITERALS.has(next)) {
        run += next;
        lastIsLiteral = true;
      } else if (CLASS_ESCAPES.has(next)) endRun();
      else if (!ZERO_WIDTH_ESCAPES.has(next)) break;
      i += 2;
    } else if (char === "[" || char === "(") {
      const end = char === "[" ? classEnd(source, i) : groupEnd(source, i);
      if (end === -1) break;
      endRun();
      i = end + 1;
    } else if (char === ".") {
      endRun();
      i += 1;
    } else if (SYNTAX.has(char) || char < " " || char > "~") {
      // `^`, `$`, a stray `)`, `]` or `}`, or a character beyond ASCII.
      endRun();
      if (char !== "^" && char !== "$" && char <= "~") break;
      i += 1;
    } else {
      run += char;
      lastIsLiteral = true;
      i += 1;
    }
  }
  endRun();
  return best.length >= Math.max(1, minLength) ? best : undefined;
}

/** The length of the quantifier at `i` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`), or 0. */
function quantifierLength(source: string, i: number): number {
  if (source[i] !== "{") return 1;
  return /^\{\d+(?:,\d*)?\}/.exec(source.slice(i, i + 32))?.[0].length ?? 0;
}

/** The index of the `]` closing the class opened at `open`, or -1. */
function classEnd(source: string, open: number): number {
  for (let i = open + 1; i < source.length; i++) {
    if (source[i] === "\\") i += 1;
    else if (source[i] === "]") return i;
  }
  return -1;
}

/** The index of the `)` closing the group opened at `open`, classes and escapes skipped, or -1. */
function groupEnd(source: string, open: number): number {
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    const char = source[i];
    if (char === "\\") i += 1;
    else if (char === "[") {
      i = classEnd(source, i);
      if (i === -1) return -1;
    } else if (char === "(") depth += 1;
    else if (char === ")" && --depth === 0) return i;
  }
  return -1;
}

/**
 * Whether `bytes` hold the ASCII `literal`; undefined when telling would take more than a few
 * looks per byte (a file of the literal's first character), so that the check stays linear.
 * ASCII bytes decode to themselves in UTF-8 whatever surrounds them, so the bytes hold the
 * literal exactly when the decoded text does.
 */
export function containsLiteral(bytes: Uint8Array, literal: Uint8Array): boolean | undefined {
  const first = literal[0];
  if (first === undefined) return true;
  let budget = 4 * bytes.length + 64;
  const last = bytes.length - literal.length;
  for (let i = bytes.indexOf(first); i !== -1 && i <= last; i = bytes.indexOf(first, i + 1)) {
    let j = 1;
    while (j < literal.length && bytes[i + j] === literal[j]) j += 1;
    if (j === literal.length) return true;
    budget -= j + 1;
    if (budget < 0) return undefined;
  }
  return false;
}
