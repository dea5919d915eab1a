/**
 * Glob patterns over `/`-separated relative paths, as the Glob tool, `if` rules and `.gitignore`
 * read them: `*` and `?` stay inside one path segment, `**` as a whole segment spans any number
 * of segments (none included), `[abc]` / `[!abc]` are character classes, `{a,b}` is a choice,
 * `\` escapes the next character.
 *
 * Patterns come from models and settings files, so matching must not backtrack without bound (a
 * regular expression such as `(?:[^/]*\/)*[^/]*a[^/]*a[^/]*b` takes seconds on a 255-character
 * path): segments are matched against segments with memoised `**`, and each segment with a
 * wildcard matcher that returns only to the last `*`.
 */

export interface GlobOptions {
  /** Case-insensitive matching (default: case-sensitive). */
  readonly ignoreCase?: boolean;
}

export interface GlobMatcher {
  test(path: string): boolean;
}

/** A choice `{a,b}` expands to at most this many patterns; past it the rest are dropped. */
const MAX_ALTERNATIVES = 256;

export function compileGlob(pattern: string, options: GlobOptions = {}): GlobMatcher {
  const fold = options.ignoreCase ? (text: string) => text.toLowerCase() : (text: string) => text;
  const alternatives = expandBraces(pattern).map((alternative) =>
    fold(alternative).split("/").map(compileSegment)
  );
  return {
    test(path: string): boolean {
      const segments = fold(path).split("/");
      return alternatives.some((pattern) => matchSegments(pattern, segments));
    },
  };
}

export function matchesGlob(pattern: string, path: string, options: GlobOptions = {}): boolean {
  return compileGlob(pattern, options).test(path);
}

/** Whether a pattern has any wildcard at all (a literal path is looked up, not walked). */
export function hasGlobMagic(pattern: string): boolean {
  return /[*?[{]/.test(pattern);
}

/** One segment: `**` alone, or tokens matched within the segment. */
type Segment = { readonly kind: "globstar" } | {
  readonly kind: "tokens";
  readonly tokens: readonly Token[];
};

type Token =
  | { readonly kind: "literal"; readonly char: string }
  | { readonly kind: "any" }
  | { readonly kind: "star" }
  | { readonly kind: "class"; readonly negated: boolean; readonly test: (char: string) => boolean };

function compileSegment(text: string): Segment {
  if (text === "**") return { kind: "globstar" };
  const tokens: Token[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i] ?? "";
    if (char === "\\" && i + 1 < text.length) {
      tokens.push({ kind: "literal", char: text[++i] ?? "" });
    } else if (char === "*") {
      // `**` inside a segment is a plain `*`; runs of stars are one.
      if (tokens.at(-1)?.kind !== "star") tokens.push({ kind: "star" });
    } else if (char === "?") {
      tokens.push({ kind: "any" });
    } else if (char === "[" && classEnd(text, i) !== -1) {
      const close = classEnd(text, i);
      tokens.push(compileClass(text.slice(i + 1, close)));
      i = close;
    } else {
      tokens.push({ kind: "literal", char });
    }
  }
  return { kind: "tokens", tokens };
}

function compileClass(body: string): Token {
  const negated = body.startsWith("!") || body.startsWith("^");
  const chars = [...(negated ? body.slice(1) : body).replace(/\\(.)/g, "$1")];
  const ranges: [string, string][] = [];
  const singles = new Set<string>();
  for (let i = 0; i < chars.length; i++) {
    const from = chars[i] ?? "";
    if (chars[i + 1] === "-" && i + 2 < chars.length) {
      ranges.push([from, chars[i + 2] ?? ""]);
      i += 2;
    } else singles.add(from);
  }
  const inside = (char: string) =>
    singles.has(char) || ranges.some(([low, high]) => char >= low && char <= high);
  return { kind: "class", negated, test: (char) => inside(char) !== negated };
}

/** The index of the `]` closing a class opened at `open`, or -1. */
function classEnd(pattern: string, open: number): number {
  let i = open + 1;
  if (pattern[i] === "!" || pattern[i] === "^") i += 1;
  if (pattern[i] === "]") i += 1;
  for (; i < pattern.length; i++) {
    if (pattern[i] === "\\") i += 1;
    else if (pattern[i] === "]") return i;
  }
  return -1;
}

/** Path segments against pattern segments; `**` spans any number, memoised so it stays O(n·m). */
function matchSegments(pattern: readonly Segment[], path: readonly string[]): boolean {
  const failed = new Set<number>();
  const match = (p: number, s: number): boolean => {
    if (p === pattern.length) return s === path.length;
    const key = p * (path.length + 1) + s;
    if (failed.has(key)) return false;
    const segment = pattern[p]!;
    // A trailing `**` is everything below: one segment or more (`src/**` is not `src` itself).
    const ok = segment.kind === "globstar"
      ? p === pattern.length - 1
        ? s < path.length
        : match(p + 1, s) || (s < path.length && match(p, s + 1))
      : s < path.length && matchTokens(segment.tokens, path[s]!) && match(p + 1, s + 1);
    if (!ok) failed.add(key);
    return ok;
  };
  return match(0, 0);
}

/** One segment's tokens against one path segment: back to the last `*` only, so linear-ish. */
function matchTokens(tokens: readonly Token[], text: string): boolean {
  let t = 0;
  let c = 0;
  let starToken = -1;
  let starChar = 0;
  while (c < text.length) {
    const token = tokens[t];
    if (token !== undefined && token.kind !== "star" && accepts(token, text[c]!)) {
      t += 1;
      c += 1;
    } else if (token?.kind === "star") {
      starToken = t++;
      starChar = c;
    } else if (starToken !== -1) {
      t = starToken + 1;
      c = ++starChar;
    } else {
      return false;
    }
  }
  while (tokens[t]?.kind === "star") t += 1;
  return t === tokens.length;
}

function accepts(token: Exclude<Token, { kind: "star" }>, char: string): boolean {
  switch (token.kind) {
    case "literal":
      return token.char === char;
    case "any":
      return true;
    case "class":
      return token.test(char);
    default:
      return token satisfies never;
  }
}

/** `a{b,c}d` → `abd`, `acd`, nested choices too; a `{` without its `}` is literal. */
function expandBraces(pattern: string): string[] {
  const open = findUnescaped(pattern, "{", 0);
  if (open === -1) return [pattern];
  const close = matchingBrace(pattern, open);
  if (close === -1) {
    // A literal `{`: escape it and expand what follows.
    return expandBraces(pattern.slice(open + 1)).map((rest) =>
      pattern.slice(0, open) + "\\{" + rest
    );
  }
  const choices = splitTopLevel(pattern.slice(open + 1, close));
  const head = pattern.slice(0, open);
  const tails = expandBraces(pattern.slice(close + 1));
  const out: string[] = [];
  for (const choice of choices) {
    for (const middle of expandBraces(choice)) {
      for (const tail of tails) {
        if (out.length >= MAX_ALTERNATIVES) return out;
        out.push(head + middle + tail);
      }
    }
  }
  return out;
}

function findUnescaped(text: string, char: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === "\\") i += 1;
    else if (text[i] === char) return i;
  }
  return -1;
}

function matchingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "\\") i += 1;
    else if (text[i] === "{") depth += 1;
    else if (text[i] === "}" && --depth === 0) return i;
  }
  return -1;
}

function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    if (body[i] === "\\") i += 1;
    else if (body[i] === "{") depth += 1;
    else if (body[i] === "}") depth -= 1;
    else if (body[i] === "," && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}
