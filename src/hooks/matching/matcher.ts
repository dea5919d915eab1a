/**
 * Matchers exactly as Claude Code (≥ 2.1.195) reads them: empty or `*` matches everything; a
 * matcher made only of letters, digits, `_`, `-`, space, `,` and `|` is a list of exact names;
 * anything else is an unanchored JavaScript regular expression with no flags.
 */

export type Matcher =
  | { readonly kind: "all" }
  | { readonly kind: "list"; readonly names: readonly string[] }
  | { readonly kind: "regex"; readonly regex: RegExp };

export type CompiledMatcher =
  | { readonly ok: true; readonly matcher: Matcher }
  | { readonly ok: false; readonly reason: string };

const LIST_ONLY = /^[A-Za-z0-9_\- ,|]*$/;

export function compileMatcher(source: string | undefined): CompiledMatcher {
  if (source === undefined || source === "" || source === "*") {
    return { ok: true, matcher: { kind: "all" } };
  }
  if (LIST_ONLY.test(source)) {
    const names = source.split(/[|,]/).map((name) => name.trim()).filter((name) => name !== "");
    // A matcher such as "|" names nothing and so matches nothing; `hooks lint` points it out.
    return { ok: true, matcher: { kind: "list", names } };
  }
  try {
    return { ok: true, matcher: { kind: "regex", regex: new RegExp(source) } };
  } catch (error) {
    const detail = error instanceof SyntaxError ? error.message : String(error);
    return { ok: false, reason: `"${source}" is not a valid regular expression: ${detail}` };
  }
}

/** Whether a matcher accepts a value; a null value (events without a matcher field) always does. */
export function matches(matcher: Matcher, value: string | null): boolean {
  if (value === null) return true;
  switch (matcher.kind) {
    case "all":
      return true;
    case "list":
      return matcher.names.includes(value);
    case "regex":
      return matcher.regex.test(value);
    default:
      return matcher satisfies never;
  }
}
