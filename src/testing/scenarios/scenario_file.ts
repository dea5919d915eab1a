/**
 * Loading one `hooks test` scenario file: JSONC text in, a validated `ScenarioFile` out, with the
 * line of every case and expectation; or every problem at once, each with its file, line, column
 * and JSON pointer, so a user can go straight to it.
 *
 * Scenario and settings files are read as configuration files are (`readConfigFile`): regular
 * files of at most 4 MiB, so a FIFO or a link to `/dev/zero` is a problem, not a wait.
 *
 * Reading is lenient (comments and trailing commas accepted). Positions come from the settings
 * loader's JSONC reader (`parseSettingsFile`), so scenario and settings problems point the same
 * way: at a property's key, an array element, or the nearest existing ancestor of something
 * missing.
 */
import { nodeValue } from "../../hooks/settings/jsonc_value.ts";
import { dirname, resolve } from "node:path";
import { parseTree } from "jsonc-parser";
import { errorMessage } from "../../error.ts";
import { readConfigFile } from "../../config_file.ts";
import { jsonPointer } from "../../hooks/diagnostic.ts";
import { readPluginDir } from "../../hooks/plugins/plugin_hooks.ts";
import { parseSettingsFile, type Position } from "../../hooks/settings/settings_file.ts";
import type { CaseLocation } from "./case_result.ts";
import type { ScenarioProblem } from "./scenario_run.ts";
import { type ScenarioCase, ScenarioFile } from "./scenario_schema.ts";
import { type InvalidCase, invalidCase, splitProblems, validCases } from "./invalid_cases.ts";
import { describeIssues, isObject, valueAt } from "./describe_issues.ts";
import { withoutBom } from "../../text_position.ts";

/** Settings given inline instead of the repository's chain. */
export type InlineSettings = Exclude<NonNullable<ScenarioFile["settings"]>, string>;

/** The settings a case runs against instead of the repository's chain. */
export type SettingsOverride =
  | { readonly kind: "file"; readonly path: string }
  | { readonly kind: "inline"; readonly settings: InlineSettings };

export interface LoadedCase {
  readonly case: ScenarioCase;
  readonly location: CaseLocation;
  /** The fixture HOME, absolute: the case's `home`, else the file's; undefined for an empty one. */
  readonly home: string | undefined;
  /** The case's `settings`, else the file's, a path resolved to an absolute one. */
  readonly settings: SettingsOverride | undefined;
  /** The case's `pluginDirs`, else the file's, absolute; absent or empty when neither names any. */
  readonly pluginDirs?: readonly string[];
}

export interface LoadedScenario {
  /** The scenario file, as it was opened. */
  readonly file: string;
  readonly scenario: ScenarioFile;
  /**
   * The valid cases in file order; `location.pointer` is `/cases/<i>`, `i` the case's position
   * in the file (invalid cases before it count).
   */
  readonly cases: readonly LoadedCase[];
  /**
   * The cases the schema or a check beside it refused, in file order: each is reported as an
   * error and the others run. Absent or empty when every case is valid.
   */
  readonly invalidCases?: readonly InvalidCase[];
  /**
   * The 1-based line of what a JSON pointer names (`/cases/0/expect/reason`): a property's key or
   * an array element. A pointer to something the file lacks gives its nearest existing ancestor.
   */
  lineOf(pointer: string): number;
}

export type LoadScenarioResult =
  | { readonly ok: true; readonly scenario: LoadedScenario }
  | { readonly ok: false; readonly problems: readonly ScenarioProblem[] };

export interface LoadScenarioOptions {
  /** How messages name the file (default: the path as given). */
  readonly displayPath?: string;
}

/** A problem that concerns the whole file and has no position in it. */
const FILE_START: Position = { line: 1, column: 1 };

/**
 * Reads, parses and validates one scenario file, then checks what the schema cannot: fixture
 * directories, plugin directories and settings files that must exist, and case names that must
 * be unique. Never throws: every problem is returned. Problems that lie inside cases only make
 * those cases invalid (`invalidCases`); one anywhere else makes the file invalid.
 */
export async function loadScenarioFile(
  path: string,
  options: LoadScenarioOptions = {},
): Promise<LoadScenarioResult> {
  const shown = options.displayPath ?? path;
  let text: string;
  try {
    text = await readConfigFile(path);
  } catch (error) {
    const message = `Cannot read scenario "${shown}": ${readFailure(error)}`;
    return { ok: false, problems: [{ file: path, ...FILE_START, pointer: "", message }] };
  }
  const parsed = parseScenarioText(path, text, options);
  if (parsed.document === undefined) return { ok: false, problems: parsed.problems };
  const { document } = parsed;
  const problems = [...parsed.problems, ...await checkReferencedPaths(document, shown)];
  if (problems.length === 0 && parsed.scenario !== undefined) {
    return { ok: true, scenario: loadedScenario(document, parsed.scenario) };
  }
  const { file, byCase } = splitProblems(problems);
  const valid = file.length === 0 ? validCases(document.value, new Set(byCase.keys())) : undefined;
  if (valid === undefined) return { ok: false, problems: sortProblems(problems) };
  const invalidCases = [...byCase].sort(([a], [b]) => a - b).map(([index, found]) =>
    invalidCase(
      document.file,
      shown,
      document.value,
      index,
      document.positionOf(`/cases/${index}`).line,
      sortProblems(found),
    )
  );
  return {
    ok: true,
    scenario: { ...loadedScenario(document, valid.scenario, valid.positions), invalidCases },
  };
}

/** A scenario file's JSONC, parsed: its value and a way from a pointer to a position. */
export interface ScenarioDocument {
  readonly file: string;
  readonly value: unknown;
  positionOf(pointer: string): Position;
}

export interface ParsedScenarioText {
  /** Undefined when the text is not JSONC or its top level is not an object. */
  readonly document: ScenarioDocument | undefined;
  /** Defined when the document matched the schema. */
  readonly scenario: ScenarioFile | undefined;
  /** Syntax, schema and duplicate-name problems; no file system checks. */
  readonly problems: readonly ScenarioProblem[];
}

/** The pure part of loading: syntax, schema and unique case names. */
export function parseScenarioText(
  file: string,
  text: string,
  options: LoadScenarioOptions = {},
): ParsedScenarioText {
  const shown = options.displayPath ?? file;
  const reader = parseSettingsFile(file, text);
  if (reader.settings === undefined) {
    const problems = reader.diagnostics.map((d): ScenarioProblem => ({
      file,
      line: d.line ?? 1,
      column: d.column ?? 1,
      pointer: "",
      message: `Invalid scenario "${shown}": ${
        d.code === "SETTINGS_PARSE"
          ? d.message.replace(/^Invalid JSON: /, "JSONC syntax error: ")
          : 'the file must hold an object with "cases"'
      }`,
    }));
    return { document: undefined, scenario: undefined, problems };
  }
  let value: unknown;
  try {
    // The settings reader accepted the text, so the lenient tree has no errors.
    const root = parseTree(withoutBom(text).body, [], LENIENT);
    value = root === undefined ? {} : nodeValue(root);
  } catch (error) {
    const detail = error instanceof RangeError ? "nesting is too deep" : errorMessage(error);
    const message = `Invalid scenario "${shown}": JSONC syntax error: ${detail}`;
    return {
      document: undefined,
      scenario: undefined,
      problems: [{ file, ...FILE_START, pointer: "", message }],
    };
  }
  const document: ScenarioDocument = { file, value, positionOf: reader.settings.positionOf };
  const checked = ScenarioFile.safeParse(value);
  const issues = checked.success ? [] : describeIssues(checked.error.issues, ScenarioFile, value);
  const found = [...issues, ...duplicateNames(document)];
  const problems = found.map(({ pointer, what }) => problemAt(document, shown, pointer, what));
  return {
    document,
    scenario: checked.success && problems.length === 0 ? checked.data : undefined,
    problems: sortProblems(problems),
  };
}

/** `positions[i]`: where `scenario.cases[i]` is in the file (default: at `i`). */
function loadedScenario(
  document: ScenarioDocument,
  scenario: ScenarioFile,
  positions?: readonly number[],
): LoadedScenario {
  const base = dirname(resolve(document.file));
  const fileHome = scenario.home === undefined ? undefined : resolve(base, scenario.home);
  const fileSettings = settingsOverride(base, scenario.settings);
  const filePlugins = (scenario.pluginDirs ?? []).map((dir) => resolve(base, dir));
  const cases = scenario.cases.map((c, i): LoadedCase => {
    const pointer = `/cases/${positions?.[i] ?? i}`;
    return {
      case: c,
      location: { file: document.file, line: document.positionOf(pointer).line, pointer },
      home: c.home === undefined ? fileHome : resolve(base, c.home),
      settings: c.settings === undefined ? fileSettings : settingsOverride(base, c.settings),
      pluginDirs: c.pluginDirs === undefined
        ? filePlugins
        : c.pluginDirs.map((dir) => resolve(base, dir)),
    };
  });
  return {
    file: document.file,
    scenario,
    cases,
    lineOf: (pointer) => document.positionOf(pointer).line,
  };
}

function settingsOverride(
  base: string,
  settings: ScenarioFile["settings"],
): SettingsOverride | undefined {
  if (settings === undefined) return undefined;
  if (typeof settings === "string") return { kind: "file", path: resolve(base, settings) };
  return { kind: "inline", settings };
}

/** Every place that may hold `home`, `settings` and `pluginDirs`: the file, then each case. */
function placements(value: unknown): { pointer: string; place: Record<string, unknown> }[] {
  if (!isObject(value)) return [];
  const places = [{ pointer: "", place: value }];
  const cases = valueAt(value, ["cases"]).value;
  if (Array.isArray(cases)) {
    cases.forEach((c: unknown, index) => {
      if (isObject(c)) places.push({ pointer: `/cases/${index}`, place: c });
    });
  }
  return places;
}

/** Fixture and plugin directories that must exist, and settings files that must parse. */
async function checkReferencedPaths(
  document: ScenarioDocument,
  shown: string,
): Promise<ScenarioProblem[]> {
  const base = dirname(resolve(document.file));
  const problems: ScenarioProblem[] = [];
  for (const { pointer, place } of placements(document.value)) {
    const { home, settings, pluginDirs } = place;
    if (typeof home === "string") {
      const what = await homeProblem(resolve(base, home), home);
      if (what) problems.push(problemAt(document, shown, `${pointer}/home`, what));
    }
    if (Array.isArray(pluginDirs)) {
      for (const [index, dir] of pluginDirs.entries()) {
        if (typeof dir !== "string" || dir === "") continue;
        const what = await pluginDirProblem(resolve(base, dir), dir);
        if (what) problems.push(problemAt(document, shown, `${pointer}/pluginDirs/${index}`, what));
      }
    }
    if (typeof settings === "string") {
      const what = await settingsProblem(resolve(base, settings), settings);
      if (what) problems.push(problemAt(document, shown, `${pointer}/settings`, what));
    }
  }
  return problems;
}

async function homeProblem(path: string, written: string): Promise<string | undefined> {
  try {
    const info = await Deno.stat(path);
    return info.isDirectory ? undefined : `home "${written}" is not a directory`;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return `home directory "${written}" does not exist (looked for "${path}")`;
    }
    return `cannot use home directory "${written}": ${readFailure(error)}`;
  }
}

/** A plugin directory must exist and name its plugin, as `--plugin-dir` requires. */
async function pluginDirProblem(path: string, written: string): Promise<string | undefined> {
  try {
    const info = await Deno.stat(path);
    if (!info.isDirectory) return `plugin directory "${written}" is not a directory`;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return `plugin directory "${written}" does not exist (looked for "${path}")`;
    }
    return `cannot use plugin directory "${written}": ${readFailure(error)}`;
  }
  const found = await readPluginDir(path, undefined);
  const first = found.diagnostics[0];
  return first === undefined
    ? undefined
    : `cannot use plugin directory "${written}": ${lowerFirst(first.message)}`;
}

async function settingsProblem(path: string, written: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readConfigFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return `settings file "${written}" does not exist (looked for "${path}")`;
    }
    return `cannot read settings file "${written}": ${readFailure(error)}`;
  }
  const first = parseSettingsFile(path, text).diagnostics.find((d) => d.severity === "error");
  if (first === undefined) return undefined;
  const where = first.line === undefined ? "" : ` (line ${first.line}, column ${first.column})`;
  const at = first.pointer === "" ? "" : ` at ${first.pointer}`;
  return `cannot use settings file "${written}": ${lowerFirst(first.message)}${at}${where}`;
}

/** Case names are how results, filters and reports tell cases apart. */
function duplicateNames(document: ScenarioDocument): { pointer: string; what: string }[] {
  const cases = valueAt(document.value, ["cases"]).value;
  if (!Array.isArray(cases)) return [];
  const firstIndex = new Map<string, number>();
  const found: { pointer: string; what: string }[] = [];
  cases.forEach((c: unknown, index) => {
    const name = valueAt(c, ["name"]).value;
    if (typeof name !== "string") return;
    const first = firstIndex.get(name);
    if (first === undefined) {
      firstIndex.set(name, index);
      return;
    }
    const line = document.positionOf(`/cases/${first}`).line;
    found.push({
      pointer: jsonPointer(["cases", index, "name"]),
      what: `duplicate case name "${name}" (case ${first}, line ${line}, has it too)`,
    });
  });
  return found;
}

function problemAt(
  document: ScenarioDocument,
  shown: string,
  pointer: string,
  what: string,
): ScenarioProblem {
  const at = pointer === "" ? "" : ` at ${pointer}`;
  return {
    file: document.file,
    ...document.positionOf(pointer),
    pointer,
    message: `Invalid scenario "${shown}": ${what}${at}`,
  };
}

function sortProblems(problems: readonly ScenarioProblem[]): ScenarioProblem[] {
  return [...problems].sort((a, b) => a.line - b.line || a.column - b.column);
}

function readFailure(error: unknown): string {
  if (error instanceof Deno.errors.NotFound) return "no such file";
  if (error instanceof Deno.errors.PermissionDenied) return "permission denied";
  if (error instanceof Deno.errors.IsADirectory) return "it is a directory";
  if (error instanceof Deno.errors.InvalidData) return "it is not UTF-8 text";
  return errorMessage(error);
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

const LENIENT = { disallowComments: false, allowTrailingComma: true, allowEmptyContent: true };
