/**
 * Glob patterns over `/`-separated relative paths, as the Glob tool, `if` rules and `.gitignore`
 * read them: `*` and `?` stay inside one path segment, `**` spans any number of segments (none
 * included), `[abc]` / `[!abc]` are character classes, `{a,b}` is a choice, `\` escapes the next
 * character. Compiled once to an anchored regular expression.
 */

export interface GlobOptions {
  /** Case-insensitive matching (default: case-sensitive). */
  readonly ignoreCase?: boolean;
}

export function globToRegExp(pattern: string, options: GlobOptions = {}): RegExp {
  return new RegExp(`^${globBody(pattern)}$`, options.ignoreCase ? "i" : "");
}

export function matchesGlob(pattern: string, path: string, options: GlobOptions = {}): boolean {
  return globToRegExp(pattern, options).test(path);
}

/** Whether a pattern has any wildcard at all (a literal path is looked up, not walked). */
export function hasGlobMagic(pattern: string): boolean {
  return /[*?[{]/.test(pattern);
}

function globBody(pattern: string): string {
  let out = "";
  let i = 0;
  let braceDepth = 0;
  while (i < pattern.length) {
    const char = pattern[i] ?? "";
    if (char === "\\" && i + 1 < pattern.length) {
      out += escapeRegExp(pattern[i + 1] ?? "");
      i += 2;
      continue;
    }
    if (char === "*") {
      if (pattern[i + 1] === "*") {
        const atSegmentStart = i === 0 || pattern[i - 1] === "/";
        const end = i + 2;
        if (atSegmentStart && pattern[end] === "/") {
          // `**/`: zero or more whole segments.
          out += "(?:[^/]*/)*";
          i = end + 1;
          continue;
        }
        if (atSegmentStart && end === pattern.length) {
          // A trailing `**`: everything below, at any depth.
          out += ".*";
          i = end;
          continue;
        }
        // `**` inside a segment is a plain `*`.
        out += "[^/]*";
        i = end;
        continue;
      }
      out += "[^/]*";
      i += 1;
      continue;
    }
    if (char === "?") {
      out += "[^/]";
      i += 1;
      continue;
    }
    if (char === "[") {
      const close = classEnd(pattern, i);
      if (close === -1) {
        out += "\\[";
        i += 1;
        continue;
      }
      let body = pattern.slice(i + 1, close);
      const negated = body.startsWith("!") || body.startsWith("^");
      if (negated) body = body.slice(1);
      const escaped = body.replace(/\\(.)/g, "$1").replace(/[\\\]^]/g, "\\$&");
      out += negated ? `[^/${escaped}]` : `[${escaped}]`;
      i = close + 1;
      continue;
    }
    if (char === "{" && pattern.indexOf("}", i + 1) !== -1) {
      braceDepth += 1;
      out += "(?:";
      i += 1;
      continue;
    }
    if (char === "}" && braceDepth > 0) {
      braceDepth -= 1;
      out += ")";
      i += 1;
      continue;
    }
    if (char === "," && braceDepth > 0) {
      out += "|";
      i += 1;
      continue;
    }
    out += escapeRegExp(char);
    i += 1;
  }
  // A `{` whose `}` is taken by an inner group stays open: close it so the expression is valid.
  return out + ")".repeat(braceDepth);
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

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
