/**
 * What `hooks test --update` writes for one failing expectation, as edits of the case's value.
 * Pure.
 *
 * - A value that was observed replaces the expected one: a `{"matches"}` that failed becomes the
 *   exact text seen, `decision`, `exitCodes`, `updatedInput`, `errors`, `files`, `notices`,
 *   `stopReason`, `agentText` become what happened, and `matched` becomes the hooks that ran,
 *   named as `hooks init` names them (hook_label.ts).
 * - A text expected but absent (no reason, no context...) removes its key: the schema has no way
 *   to say "none", and an absent text matches no expectation.
 * - `hooks` and `tools` become the observed lists; an entry the user wrote for the same event
 *   or tool keeps to the fields they chose to assert. A tool call whose name differs gets the
 *   new name only: the rest of that entry was never compared, so the case must run again.
 * - `meta` keeps its keys, each with the value observed; keys absent from `_meta` are dropped
 *   (and `meta` with its last key).
 * - Left for the user, listed "edit by hand": a hook reference that names no hook (a typo),
 *   `notMatched` and `timedOut` entries, `modelSaw`, `modelNeverSaw` and their evaluator
 *   counterparts (what a case must or must not show is the user's to say, not a snapshot of
 *   it), an `env` no command hook ran to see, and anything whose observed value the schema
 *   does not accept there (removing the last expectation, a tool input that is not an
 *   object...): the caller checks each edit.
 */
import type { ExpectationFailure } from "../scenarios/case_result.ts";
import { isObject } from "../scenarios/describe_issues.ts";
import { pointerOf } from "../runner/expectation_match.ts";
import { pointerSegments } from "./jsonc_edit.ts";

export type Edit =
  | { readonly kind: "replace"; readonly pointer: string; readonly value: unknown }
  | { readonly kind: "remove"; readonly pointer: string };

/** What one failure asks for: edits to try in turn (the first valid one is kept), or a reason. */
export type Plan =
  | { readonly edits: readonly Edit[]; readonly rerun?: string }
  | { readonly hand: string };

/** The edits one failure asks for, by the expectation it is about. */
export function planFailure(failure: ExpectationFailure, caseValue: unknown): Plan {
  const pointer = pointerOf(failure.path);
  const segments = pointerSegments(pointer);
  const [top, field, index, member] = segments;
  const actual = failure.actual;
  const replace = (value: unknown): Edit => ({ kind: "replace", pointer, value });
  const expected = valueAt(caseValue, pointer);
  if (top !== "expect" || field === undefined) return { hand: failure.message };
  switch (field) {
    case "notMatched":
      // An array: the hook ran (null: the reference names no hook, which the message says).
      return Array.isArray(actual)
        ? { hand: `${failure.message}: remove it from "notMatched" if it should run` }
        : { hand: failure.message };
    case "timedOut":
    case "modelSaw":
    case "modelNeverSaw":
    case "evaluatorSaw":
    case "evaluatorNeverSaw":
      return { hand: failure.message };
    case "matched":
      // A failure of one entry is a reference that names no hook: only the user knows which.
      return index === undefined ? { edits: [replace(actual)] } : { hand: failure.message };
    case "hooks":
      if (index === undefined && Array.isArray(actual)) {
        return { edits: [replace(mergeEntries(expected, actual, "event", HOOK_FIELDS))] };
      }
      break;
    case "tools":
      if (index === undefined && Array.isArray(actual)) {
        return { edits: [replace(mergeEntries(expected, actual, "name", TOOL_FIELDS))] };
      }
      if (member === "name") {
        return {
          edits: [replace(actual)],
          rerun: "only the name of this tool call was compared: run again with --update for " +
            "the rest of the entry",
        };
      }
      break;
    case "env":
      // No command hook ran: nothing was observed that the expectation could become.
      if (index === undefined && actual === null) return { hand: failure.message };
      break;
    case "meta":
      if (index !== undefined && actual === null) {
        // The key is absent from _meta (or null there): it goes, and an emptied meta with it.
        const meta = valueAt(caseValue, "/expect/meta");
        const last = isObject(meta) && Object.keys(meta).length === 1;
        return { edits: [{ kind: "remove", pointer: last ? "/expect/meta" : pointer }] };
      }
      if (segments.length === 2) {
        const kept = isObject(expected) && isObject(actual)
          ? projectedOnto(expected, actual)
          : undefined;
        if (kept === undefined || Object.keys(kept).length === 0) {
          return { hand: `${failure.message}: none of its keys is in _meta` };
        }
        return { edits: [replace(kept)] };
      }
      break;
  }
  const edits: Edit[] = actual === undefined ? [] : [replace(actual)];
  const key = segments.at(-1);
  const parent = valueAt(caseValue, pointer.slice(0, pointer.lastIndexOf("/")));
  // Expected, but there is none: the key goes (an absent text matches no expectation).
  if (actual === null && key !== undefined && isObject(parent)) {
    edits.push({ kind: "remove", pointer });
  }
  return { edits };
}

const HOOK_FIELDS = ["matcher", "decision"] as const;
const TOOL_FIELDS = ["dispatched", "input", "status"] as const;

/**
 * The observed entries, each as an object with its `id` field (`event`, `name`); where the
 * user's entry at the same position has the same id, only the fields they wrote are kept, else
 * every observed field. A null field is left out (the schema has no null `status`).
 */
function mergeEntries(
  expected: unknown,
  actual: readonly unknown[],
  id: string,
  fields: readonly string[],
): unknown[] {
  const written = Array.isArray(expected) ? expected : [];
  return actual.map((got, i) => {
    if (!isObject(got)) return got;
    const want = written[i];
    const same = isObject(want) && want[id] === got[id];
    const entry: Record<string, unknown> = { [id]: got[id] };
    for (const field of fields) {
      const chosen = !same || want[field] !== undefined;
      if (chosen && got[field] !== null && got[field] !== undefined) entry[field] = got[field];
    }
    return entry;
  });
}

/** `expected`'s keys with `actual`'s values, nested objects likewise; missing keys dropped. */
function projectedOnto(
  expected: Record<string, unknown>,
  actual: Record<string, unknown>,
): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, want] of Object.entries(expected)) {
    if (!Object.hasOwn(actual, key)) continue;
    const got = actual[key];
    const nested = isObject(want) && isObject(got) && !("matches" in want);
    kept[key] = nested ? projectedOnto(want, got) : got;
  }
  return kept;
}

/** A copy of `value` with the edit made. */
export function applyToValue(value: Record<string, unknown>, edit: Edit): Record<string, unknown> {
  const copy = structuredClone(value);
  const segments = pointerSegments(edit.pointer);
  const last = segments.pop();
  const parent = segments.reduce<unknown>(child, copy);
  if (last === undefined) return copy;
  if (Array.isArray(parent)) {
    if (edit.kind === "replace") parent[Number(last)] = structuredClone(edit.value);
  } else if (isObject(parent)) {
    if (edit.kind === "remove") delete parent[last];
    else parent[last] = structuredClone(edit.value);
  }
  return copy;
}

export function valueAt(value: unknown, pointer: string): unknown {
  return pointerSegments(pointer).reduce<unknown>(child, value);
}

function child(node: unknown, segment: string): unknown {
  if (Array.isArray(node)) return node[Number(segment)];
  return isObject(node) && Object.hasOwn(node, segment) ? node[segment] : undefined;
}
