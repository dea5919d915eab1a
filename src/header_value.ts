/**
 * What an HTTP header value can carry. `fetch` refuses a value with a line break or another
 * control character, and its error quotes the whole value: a key or a token expanded into a
 * header would be printed wherever the error goes (stderr, the transcript, a notice the model
 * reads). So a value is checked before anything is sent, and the problem is told in words that
 * say where the character is and never repeat the value.
 */

/**
 * Which characters a value may hold: `ascii` takes visible ASCII and spaces alone (an API key has
 * no other); `field` takes what `fetch` sends as it is, tabs and Latin-1 letters too.
 */
export type HeaderCharset = "ascii" | "field";

const REFUSED: Readonly<Record<HeaderCharset, RegExp>> = {
  ascii: /[^\x20-\x7e]/,
  // Control characters are what is looked for.
  // deno-lint-ignore no-control-regex
  field: /[\x00-\x08\x0a-\x1f\x7f]|[^\x00-\xff]/,
};

/** The index of the first character of `value` a header cannot carry; -1 when none. */
export function refusedHeaderCharacter(value: string, charset: HeaderCharset = "ascii"): number {
  return REFUSED[charset].exec(value)?.index ?? -1;
}

/**
 * The character at `index` of `value` and where it is, as words: `a line break at its end`,
 * `a control character at character 3`.
 */
export function refusedCharacterWords(value: string, index: number): string {
  const code = value.charCodeAt(index);
  const where = index === value.length - 1 ? "at its end" : `at character ${index + 1}`;
  if (code === 0x0a || code === 0x0d) return `a line break ${where}`;
  if (code < 0x20 || code === 0x7f) return `a control character ${where}`;
  return code > 0xff
    ? `a character beyond Latin-1 ${where}, which a header cannot carry`
    : `a character that is not ASCII ${where}, which a header cannot carry`;
}

/**
 * Why the value of a variable cannot be sent in an HTTP header, as words that follow its name
 * ("$KEY holds a line break: ..."); undefined when it can.
 */
export function headerValueProblem(
  value: string,
  charset: HeaderCharset = "ascii",
): string | undefined {
  const index = refusedHeaderCharacter(value, charset);
  return index < 0 ? undefined : variableValueProblemAt(value, index);
}

/** `headerValueProblem` for the refused character at `index`. */
export function variableValueProblemAt(value: string, index: number): string {
  const code = value.charCodeAt(index);
  const words = refusedCharacterWords(value, index);
  if (code === 0x0a || code === 0x0d) {
    return `holds ${words} (was it pasted with its newline?): remove it and export the value again`;
  }
  return code < 0x20 || code === 0x7f
    ? `holds ${words}: remove it and export the value again`
    : `holds ${words}: check the value`;
}
