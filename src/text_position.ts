/**
 * Where an offset falls in a text file, as editors and messages name it: a 1-based line and
 * column. "\r\n", "\r" and "\n" each end a line, as the JSONC scanner counts them. And the
 * byte order mark an editor may write: invisible, so positions are counted without it.
 */

/** A 1-based line and column (UTF-16 code units, as editors count). */
export interface Position {
  readonly line: number;
  readonly column: number;
}

/** Line starts found once, then each offset in O(log lines). */
export class LineIndex {
  #starts: number[] | undefined;
  constructor(readonly text: string) {}

  at(offset: number): Position {
    const starts = this.#starts ??= lineStarts(this.text);
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] ?? 0) <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - (starts[low] ?? 0) + 1 };
  }
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x0d && text.charCodeAt(i + 1) === 0x0a) continue;
    if (code === 0x0a || code === 0x0d) starts.push(i + 1);
  }
  return starts;
}

/** The text with its byte order mark (`bom`, "" when there is none) taken off the front. */
export function withoutBom(text: string): { readonly bom: string; readonly body: string } {
  return text.charCodeAt(0) === 0xfeff
    ? { bom: "\ufeff", body: text.slice(1) }
    : { bom: "", body: text };
}
