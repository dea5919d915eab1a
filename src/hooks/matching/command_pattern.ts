/**
 * An `if` rule's command pattern against one sub-command (claude-compat.md §7): `prefix:*` and
 * `prefix *` match the prefix alone or followed by a space and anything; any other `*` matches
 * any text, spaces included; `\*` is a literal `*` (and `\\` a backslash); no `*` means the
 * exact command.
 *
 * Matched without a regular expression: the text between stars is found left to right, each at
 * its first place after the one before, which is enough when `*` is the only wildcard. So a
 * pattern of many stars against a long command takes time proportional to their product at
 * worst, never the exponential time a backtracking `.*` can take.
 */

/** A pattern split at its unescaped stars; `segments.length - 1` stars stand between them. */
interface StarPattern {
  readonly segments: readonly string[];
}

interface CompiledCommandPattern {
  readonly whole: StarPattern;
  /** For a pattern ending in ` *` (or `:*`): the part before it, which matches alone too. */
  readonly bare: StarPattern | null;
}

/**
 * Compiled patterns, kept: selection runs on every tool call, and each gated hook's rule would
 * otherwise be compiled again for every call. Bounded, since patterns come from settings files.
 */
const compiled = new Map<string, CompiledCommandPattern>();
const MAX_COMPILED = 1024;

export function commandMatches(pattern: string, command: string): boolean {
  let entry = compiled.get(pattern);
  if (entry === undefined) {
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(pattern, entry = compileCommandPattern(pattern));
  }
  return starMatches(entry.whole, command) ||
    (entry.bare !== null && starMatches(entry.bare, command));
}

function compileCommandPattern(pattern: string): CompiledCommandPattern {
  const glob = pattern.endsWith(":*") ? `${pattern.slice(0, -2)} *` : pattern;
  const whole = starPattern(glob);
  const last = whole.segments.at(-1);
  const beforeLast = whole.segments.at(-2);
  // A trailing ` *`: the star is unescaped (it ends a segment) and a space ends the one before.
  const bare = last === "" && beforeLast?.endsWith(" ")
    ? { segments: [...whole.segments.slice(0, -2), beforeLast.slice(0, -1)] }
    : null;
  return { whole, bare };
}

function starPattern(glob: string): StarPattern {
  const segments: string[] = [];
  let segment = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] ?? "";
    if (char === "\\" && (glob[i + 1] === "*" || glob[i + 1] === "\\")) {
      segment += glob[i + 1];
      i += 1;
    } else if (char === "*") {
      segments.push(segment);
      segment = "";
    } else {
      segment += char;
    }
  }
  segments.push(segment);
  return { segments };
}

function starMatches({ segments }: StarPattern, text: string): boolean {
  const first = segments[0] ?? "";
  if (segments.length === 1) return text === first;
  const last = segments.at(-1) ?? "";
  // The first segment is anchored at the start and the last at the end, without overlapping.
  if (first.length + last.length > text.length) return false;
  if (!text.startsWith(first) || !text.endsWith(last)) return false;
  const end = text.length - last.length;
  let at = first.length;
  for (const middle of segments.slice(1, -1)) {
    const found = text.indexOf(middle, at);
    if (found === -1 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}
