/**
 * What the model reads where a tool result was cut to fit its context: what was left out and
 * how to get it, in each profile's words (src/acp/turn/tool_output_budget.ts decides the cut).
 *
 * The claude profile keeps Claude Code's own sentences where it has one, and adds how to see the
 * rest where Claude Code's does not say: Bash's middle marker `... [N lines truncated] ...`,
 * Read's `File content (N tokens) exceeds maximum allowed tokens (M)` with its advice, Glob's
 * `(Results are truncated. Consider using a more specific path or pattern.)`, and an MCP tool's
 * `MCP tool "NAME" response (N tokens) exceeds maximum allowed tokens (M)`. Claude Code refuses a
 * Read or an MCP response over its cap outright; here the head and the tail are kept around the
 * sentence, the same rule in both profiles.
 */

/** What a result came from: what its note tells the model to do to see the rest. */
export type ResultOrigin =
  | {
    readonly kind: "read";
    /** The read tool's name as the profile offers it. */
    readonly tool: string;
    readonly path: string;
    /** The file's line the result's first line is (the read's offset, or 1). */
    readonly firstLine: number;
  }
  | { readonly kind: "shell"; readonly tool: string }
  | { readonly kind: "glob"; readonly tool: string }
  | { readonly kind: "grep"; readonly tool: string }
  | { readonly kind: "mcp"; readonly tool: string }
  /** An edit's or write's report, a refusal, a hook's replacement output. */
  | { readonly kind: "other"; readonly tool: string };

/** What was left out of a result. Lines are the result's own, 1-based. */
export interface OutputCut {
  /** The first and last line not shown whole. */
  readonly fromLine: number;
  readonly toLine: number;
  /** Lines not shown whole (`toLine - fromLine + 1`). */
  readonly lines: number;
  /** Characters left out. */
  readonly chars: number;
  /**
   * The cut falls inside a line (one longer than the budget): the start and the end of the
   * text between `fromLine` and `toLine` are shown, `chars` of it are not.
   */
  readonly insideLines: boolean;
  /** Tokens left out, and the result's tokens in all. */
  readonly cutTokens: number;
  readonly totalTokens: number;
  /** The tokens the result was allowed. */
  readonly maxTokens: number;
}

export interface CutNotes {
  /** The line put where a result was cut. */
  cut(origin: ResultOrigin, cut: OutputCut): string;
  /** The line put where an older result was shortened to make room for newer ones. */
  older(cut: OutputCut): string;
}

function lineRange(from: number, to: number): string {
  return from === to ? `line ${from}` : `lines ${from}-${to}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** The file lines a cut read leaves out: where to read from, and how many. */
function readSpan(origin: { readonly firstLine: number }, cut: OutputCut) {
  const from = origin.firstLine + cut.fromLine - 1;
  return { from, to: from + cut.lines - 1, count: cut.lines };
}

/** Shortened older results: the same words in both profiles. */
function olderNote(cut: OutputCut): string {
  return cut.insideLines
    ? `[older output shortened: ${plural(cut.chars, "character")} cut]`
    : `[older output shortened: ${plural(cut.lines, "line")} cut]`;
}

export const LLAMA_CUT_NOTES: CutNotes = {
  cut(origin, cut) {
    const what = cut.insideLines
      ? `${plural(cut.chars, "character")} of ${lineRange(cut.fromLine, cut.toLine)} cut`
      : `${lineRange(cut.fromLine, cut.toLine)} cut (${plural(cut.lines, "line")}, ` +
        `${plural(cut.cutTokens, "token")})`;
    return `[${what} to fit the model's context: ${llamaHow(origin, cut)}]`;
  },
  older: olderNote,
};

function llamaHow(origin: ResultOrigin, cut: OutputCut): string {
  switch (origin.kind) {
    case "read": {
      const span = readSpan(origin, cut);
      return cut.insideLines
        ? `${lineRange(span.from, span.to)} of "${origin.path}" cannot be read whole: search ` +
          "the file for what you need instead"
        : `read them with ${origin.tool} "${origin.path}" offset ${span.from} and limit ` +
          `${span.count}, or fewer lines at a time`;
    }
    case "shell":
      return cut.insideLines
        ? "run the command again narrowed, e.g. piped to cut -c, head -c or grep"
        : "run the command again narrowed, e.g. piped to head -n, tail -n or grep";
    case "grep":
      return "narrow the pattern, path or glob, or page through with head_limit and offset";
    case "glob":
      return "narrow the pattern or path";
    case "mcp":
    case "other":
      return `ask ${origin.tool} for less at a time`;
    default:
      return origin satisfies never;
  }
}

export const CLAUDE_CUT_NOTES: CutNotes = {
  cut(origin, cut) {
    const marker = cut.insideLines
      ? `... [${cut.chars} characters truncated] ...`
      : `... [${cut.lines} lines truncated] ...`;
    switch (origin.kind) {
      case "read": {
        const span = readSpan(origin, cut);
        const head = `File content (${cut.totalTokens} tokens) exceeds maximum allowed tokens ` +
          `(${cut.maxTokens})`;
        return cut.insideLines
          ? `${head}, so ${cut.chars} characters of ${lineRange(span.from, span.to)} are not ` +
            "shown. Search for specific content instead of reading the whole file."
          : `${head}, so ${lineRange(span.from, span.to)} are not shown. Use offset and limit ` +
            "parameters to read specific portions of the file (offset " +
            `${span.from} and limit ${span.count} for these), or search for specific content ` +
            "instead of reading the whole file.";
      }
      case "shell":
        return `${marker} (run the command again narrowed, e.g. piped to head, tail or grep, ` +
          "to see them)";
      case "grep":
        return `${marker} (narrow the pattern, path or glob, or page through with head_limit ` +
          "and offset, to see them)";
      case "glob":
        return `${marker} (Results are truncated. Consider using a more specific path or ` +
          "pattern.)";
      case "mcp":
        return `MCP tool "${origin.tool}" response (${cut.totalTokens} tokens) exceeds maximum ` +
          `allowed tokens (${cut.maxTokens}): ${marker} Please use pagination, filtering, or ` +
          "limit parameters to reduce the response size.";
      case "other":
        return marker;
      default:
        return origin satisfies never;
    }
  },
  older: olderNote,
};
