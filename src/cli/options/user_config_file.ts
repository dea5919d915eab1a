/**
 * The user's config file for `acp`: `$XDG_CONFIG_HOME/llama-agent/config.json`, else
 * `$HOME/.config/llama-agent/config.json`, JSONC holding a default for any setting. It is found
 * only from those two variables, never from the working directory or the project: a project
 * file that set `endpoint` would send the code, and the named key, to a server the project chose,
 * and one that set `permissionPolicy` or `rules` would loosen the user's own guard.
 *
 * A missing file is no settings. Anything else wrong (unreadable, not a regular file, not JSONC,
 * not an object, an unknown key, a value of the wrong type) is an error naming the file and
 * line, so a typo never leaves a session running without the setting the user meant.
 */
import { isAbsolute, join } from "node:path";
import { type Node, type ParseError, parseTree, printParseErrorCode } from "jsonc-parser";
import { ConfigFileRefused, readConfigFile } from "../../config_file.ts";
import { errorMessage } from "../../error.ts";
import { duplicateKeys } from "../../jsonc_duplicate_keys.ts";
import { nearestName } from "../../nearest_name.ts";
import { outsidePathStatus } from "../outside_path_status.ts";
import { isOutsideGrant, readableRootsAdvice } from "../permission_error.ts";
import type { ReadableRoots } from "./startup_files.ts";
import { type SettingSpec, valueProblem } from "./setting_spec.ts";
import { LineIndex, withoutBom } from "../../text_position.ts";

/** A value the file gives, with the 1-based line of its key. */
export interface FileSetting {
  readonly value: string | boolean | readonly string[];
  readonly line: number;
}

/** The file that was looked for, and what it holds by setting name (the flag's name). */
export interface UserConfig {
  /** Undefined when neither variable names a home for it. */
  readonly path: string | undefined;
  readonly exists: boolean;
  readonly values: ReadonlyMap<string, FileSetting>;
  /**
   * Why the file was not read although it may exist: it lies where llama-agent may not read (a
   * compiled binary with `$XDG_CONFIG_HOME` outside the home directory). Said on stderr; the
   * agent still starts, as it does without a file.
   */
  readonly unreadable?: string;
}

export type UserConfigResult =
  | { readonly ok: true; readonly config: UserConfig }
  | { readonly ok: false; readonly message: string };

export type ParsedUserConfig =
  | { readonly ok: true; readonly values: ReadonlyMap<string, FileSetting> }
  | { readonly ok: false; readonly problems: readonly string[] };

/** A key every config file may carry, for editors: the JSON schema it follows. */
const SCHEMA_KEY = "$schema";

/**
 * Where the config file is: under `$XDG_CONFIG_HOME` when it is an absolute path (the XDG
 * specification says to ignore a relative one, which would be under whatever directory the
 * agent runs in), else under `$HOME`.
 */
export function userConfigPath(env: (name: string) => string | undefined): string | undefined {
  const xdg = env("XDG_CONFIG_HOME");
  if (xdg && isAbsolute(xdg)) return join(xdg, "llama-agent", "config.json");
  const home = env("HOME");
  return home && isAbsolute(home) ? join(home, ".config", "llama-agent", "config.json") : undefined;
}

/** Reads and checks the config file at `path` (none when undefined or missing). */
export async function loadUserConfig(
  path: string | undefined,
  specs: readonly SettingSpec[],
  roots: ReadableRoots,
): Promise<UserConfigResult> {
  if (path === undefined) return { ok: true, config: { path, exists: false, values: new Map() } };
  let text: string;
  try {
    text = await readConfigFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return { ok: true, config: { path, exists: false, values: new Map() } };
    }
    // Outside what llama-agent may read, a file that is not there is no config file either.
    const missing = isOutsideGrant(error) && await outsidePathStatus(path) === "missing";
    if (missing) return { ok: true, config: { path, exists: false, values: new Map() } };
    if (isOutsideGrant(error)) {
      const unreadable = `Cannot read config file "${path}", so its settings are not used: ` +
        readProblem(error, roots);
      return { ok: true, config: { path, exists: false, values: new Map(), unreadable } };
    }
    return {
      ok: false,
      message: `Cannot read config file "${path}": ${readProblem(error, roots)}`,
    };
  }
  const parsed = parseUserConfig(path, text, specs);
  if (!parsed.ok) return { ok: false, message: parsed.problems.join("\n") };
  return { ok: true, config: { path, exists: true, values: parsed.values } };
}

function readProblem(error: unknown, roots: ReadableRoots): string {
  if (error instanceof ConfigFileRefused) return error.message;
  if (isOutsideGrant(error)) {
    return `${readableRootsAdvice(roots.launchDir, roots.home)} (or set XDG_CONFIG_HOME to a ` +
      "directory under your home directory)";
  }
  return errorMessage(error);
}

/**
 * Checks the text of a config file against the settings; every problem is one line,
 * `PATH:LINE: "key" ...`. An empty file is no settings (what `touch` leaves). A key given twice
 * (at any depth) is an error naming both lines: read as `JSON.parse` reads it, the second would
 * silently replace the first, and a `permissionPolicy` added at the end of the file would loosen
 * the one the user sees at its top.
 */
export function parseUserConfig(
  path: string,
  rawText: string,
  specs: readonly SettingSpec[],
): ParsedUserConfig {
  // An editor's byte order mark is invisible; offsets are counted without it.
  const text = withoutBom(rawText).body;
  const lines = new LineIndex(text);
  const lineAt = (offset: number) => lines.at(offset).line;
  const at = (offset: number) => `${path}:${lineAt(offset)}`;
  const errors: ParseError[] = [];
  let root: Node | undefined;
  try {
    root = parseTree(text, errors, {
      disallowComments: false,
      allowTrailingComma: true,
      allowEmptyContent: true,
    });
  } catch (error) {
    // The parser recurses per nesting level; absurdly deep input overflows the stack.
    const detail = error instanceof RangeError ? "nesting is too deep" : errorMessage(error);
    return { ok: false, problems: [`${path}: the file is not valid JSONC: ${detail}`] };
  }
  const syntax = errors[0];
  if (syntax !== undefined) {
    const detail = words(printParseErrorCode(syntax.error));
    return {
      ok: false,
      problems: [`${at(syntax.offset)}: the file is not valid JSONC: ${detail}`],
    };
  }
  if (root === undefined) return { ok: true, values: new Map() };
  if (root.type !== "object") {
    return {
      ok: false,
      problems: [
        `${at(root.offset)}: the file must hold a JSON object of settings, got ${typeName(root)}`,
      ],
    };
  }

  const byKey = new Map(specs.map((spec) => [spec.key, spec]));
  const values = new Map<string, FileSetting>();
  const problems = duplicateKeys(root).map(({ key, path: keyPath, firstOffset, againOffset }) => {
    const name = keyPath.length === 1 ? `"${key}"` : `"${key}" (at /${keyPath.join("/")})`;
    return `${at(againOffset)}: ${name} is given twice, at lines ${lineAt(firstOffset)} and ` +
      `${lineAt(againOffset)}; keep one (the second would silently replace the first)`;
  });
  for (const property of root.children ?? []) {
    const [keyNode, valueNode] = property.children ?? [];
    if (keyNode === undefined || valueNode === undefined) continue;
    const key = String(keyNode.value);
    const where = at(property.offset);
    if (key === SCHEMA_KEY) continue;
    const spec = byKey.get(key);
    if (spec === undefined) {
      problems.push(`${where}: ${unknownKey(key, specs)}`);
      continue;
    }
    const read = settingValue(spec, valueNode);
    if (typeof read === "string") {
      problems.push(`${where}: "${key}" ${read}`);
      continue;
    }
    values.set(spec.flag.name, { value: read.value, line: lineAt(property.offset) });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, values };
}

/** The value of `node` for `spec`, or why it is not one ("must be ..."). */
function settingValue(
  spec: SettingSpec,
  node: Node,
): { readonly value: FileSetting["value"] } | string {
  const kind = spec.kind;
  switch (kind.type) {
    case "boolean":
      return node.type === "boolean"
        ? { value: node.value === true }
        : `must be true or false, got ${typeName(node)}`;
    case "list": {
      const items = node.type === "array" ? node.children ?? [] : undefined;
      if (items === undefined || items.some((item) => item.type !== "string")) {
        return `must be an array of strings, got ${typeName(node)}`;
      }
      return { value: items.map((item) => String(item.value)) };
    }
    case "integer": {
      // A number may be written as a JSON number or as a string, as on the command line.
      if (node.type !== "number" && node.type !== "string") {
        return `must be a positive integer, got ${typeName(node)}`;
      }
      const text = String(node.value);
      return valueProblem(spec, text, JSON.stringify(node.value)) ?? { value: text };
    }
    case "share": {
      // A JSON number (0.8) or a string, as on the command line ("80%").
      if (node.type !== "number" && node.type !== "string") {
        return `must be a share above 0 and at most 1, such as 0.8 or "80%", got ${typeName(node)}`;
      }
      const text = String(node.value);
      return valueProblem(spec, text, JSON.stringify(node.value)) ?? { value: text };
    }
    case "string": {
      if (node.type !== "string") return `must be a string, got ${typeName(node)}`;
      const text = String(node.value);
      if (text === "") return "must not be empty (leave the key out for the default)";
      return valueProblem(spec, text) ?? { value: text };
    }
    default:
      kind satisfies never;
      return "is not a setting";
  }
}

function unknownKey(key: string, specs: readonly SettingSpec[]): string {
  // Someone who writes the flag's own name ("ctx-size") means its key.
  const meant = specs.find((spec) => spec.flag.name === key)?.key ??
    nearestName(key, specs.map((spec) => spec.key));
  return `"${key}" is not a setting; ` +
    (meant === undefined
      ? `the settings are ${specs.map((spec) => `"${spec.key}"`).join(", ")}`
      : `did you mean "${meant}"?`);
}

/**
 * A value's JSON type, for "got ...": the value itself is not repeated, since a misplaced API key
 * would be printed with it.
 */
function typeName(node: Node): string {
  switch (node.type) {
    case "array":
      return "an array";
    case "object":
      return "an object";
    case "null":
      return "null";
    case "boolean":
      return "a boolean";
    case "number":
      return "a number";
    case "string":
      return "a string";
    case "property":
      return "a property";
    default:
      node.type satisfies never;
      return "something else";
  }
}

/** `CloseBraceExpected` → `close brace expected`. */
function words(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}
