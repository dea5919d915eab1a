/**
 * The effective value of every `acp` setting and where it came from: a flag wins over its
 * `LLAMA_AGENT_*` variable, which wins over the user's config file (user_config_file.ts), which
 * wins over the built-in default. The result has the command line's shape (`flags`, `lists`),
 * so the command reads it as it read its flags.
 *
 * Each value is checked where it came from, and a bad one is named there: `--ctx-size`,
 * `LLAMA_AGENT_CTX_SIZE`, or the file's path and line. The file is checked whole; a variable only
 * when it is the value used, as `LLAMA_AGENT_COMPAT` always was. An empty variable is unset.
 *
 * Paths in the file are relative to the file's directory (the user wrote them there, not in each
 * project), so they are made absolute here; a flag's or a variable's stay relative to the working
 * directory, which the command resolves them against.
 */
import { dirname, resolve } from "node:path";
import type { CliIo } from "../command_spec.ts";
import type { ParsedCommandLine } from "../parse_command_line.ts";
import { envBoolean, type SettingSpec, shareValue, valueProblem } from "./setting_spec.ts";
import { readableRootsOf } from "./startup_files.ts";
import { loadUserConfig, type UserConfig, userConfigPath } from "./user_config_file.ts";

export type SettingSource =
  | { readonly kind: "flag" }
  | { readonly kind: "env"; readonly variable: string }
  | { readonly kind: "file"; readonly path: string; readonly line: number }
  | { readonly kind: "default" };

export type SettingValue = string | boolean | readonly string[];

export interface Setting {
  readonly spec: SettingSpec;
  /** Undefined: the built-in default. */
  readonly value: SettingValue | undefined;
  readonly source: SettingSource;
}

export interface AcpSettings {
  /** The config file looked for. */
  readonly file: Pick<UserConfig, "path" | "exists" | "unreadable">;
  /** Every setting, in the flag table's order. */
  readonly settings: readonly Setting[];
  /** The effective values as parsed flags are: a list's last value too, as the parser does. */
  readonly flags: Readonly<Record<string, string | boolean | undefined>>;
  readonly lists: Readonly<Record<string, readonly string[]>>;
  /**
   * Each integer and share setting's value (a share as a fraction: `80%` is 0.8), undefined
   * when it has its default.
   */
  readonly numbers: Readonly<Record<string, number | undefined>>;
}

export type AcpSettingsResult =
  | { readonly ok: true; readonly settings: AcpSettings }
  | { readonly ok: false; readonly message: string };

/** A path as the file means it: `~/` is the home directory, else relative to the file. */
type PathResolver = (path: string) => string;

/** Settings whose value, when the file gives it, is a path relative to the file. */
const FILE_RELATIVE: Readonly<
  Record<string, (value: string, path: PathResolver, valueOf: (name: string) => unknown) => string>
> = {
  // With an endpoint the model is the server's id, not a file; an hf: URI is fetched.
  model: (value, path, valueOf) =>
    valueOf("endpoint") !== undefined || value.startsWith("hf:")
      ? value
      : value.startsWith("scripted:")
      ? `scripted:${path(value.slice("scripted:".length))}`
      : path(value),
  rules: (value, path) => path(value),
  "plugin-dir": (value, path) => path(value),
};

/** Reads the user's config file, then merges. */
export async function loadAcpSettings(
  specs: readonly SettingSpec[],
  parsed: Pick<ParsedCommandLine, "flags" | "lists">,
  io: Pick<CliIo, "env" | "cwd">,
): Promise<AcpSettingsResult> {
  const file = await loadUserConfig(userConfigPath(io.env), specs, readableRootsOf(io));
  if (!file.ok) return file;
  return mergeSettings(specs, parsed, io.env, file.config);
}

/** The effective settings from the parsed flags, the environment and the file (pure). */
export function mergeSettings(
  specs: readonly SettingSpec[],
  parsed: Pick<ParsedCommandLine, "flags" | "lists">,
  env: (name: string) => string | undefined,
  file: UserConfig,
): AcpSettingsResult {
  const problems: string[] = [];
  const settings: Setting[] = [];
  for (const spec of specs) {
    const chosen = chooseValue(spec, parsed, env, file);
    if (typeof chosen === "string") problems.push(chosen);
    else settings.push({ spec, ...chosen });
  }
  if (problems.length > 0) return { ok: false, message: problems.join("\n") };
  const layered = withModelOfItsLayer(settings);
  const valueOf = (name: string) => layered.find((s) => s.spec.flag.name === name)?.value;
  const resolved = layered.map((setting) => withFileRelativePaths(setting, valueOf, env));

  const flags: Record<string, string | boolean | undefined> = {};
  const lists: Record<string, readonly string[]> = {};
  const numbers: Record<string, number | undefined> = {};
  for (const { spec, value } of resolved) {
    if (isList(value)) {
      lists[spec.flag.name] = value;
      flags[spec.flag.name] = value.at(-1);
    } else {
      flags[spec.flag.name] = value;
    }
    if (spec.kind.type === "integer") {
      numbers[spec.flag.name] = typeof value === "string" ? Number(value) : undefined;
    } else if (spec.kind.type === "share") {
      numbers[spec.flag.name] = typeof value === "string" ? shareValue(value) : undefined;
    }
  }
  return {
    ok: true,
    settings: {
      file: {
        path: file.path,
        exists: file.exists,
        ...(file.unreadable === undefined ? {} : { unreadable: file.unreadable }),
      },
      settings: resolved,
      flags,
      lists,
      numbers,
    },
  };
}

/**
 * How a message names where a setting's value came from: `--endpoint`, `LLAMA_AGENT_ENDPOINT`,
 * or `/home/you/.config/llama-agent/config.json:3: "endpoint"`.
 */
export function settingPlace(settings: AcpSettings, name: string): string {
  const setting = settings.settings.find((candidate) => candidate.spec.flag.name === name);
  const source = setting?.source;
  switch (source?.kind) {
    case "env":
      return source.variable;
    case "file":
      return `${source.path}:${source.line}: "${setting!.spec.key}"`;
    default:
      return `--${name}`;
  }
}

/** `--endpoint none` (or the variable, or the file) says: a model in this process. */
export const NO_ENDPOINT = "none";

const LAYER_RANK: Readonly<Record<SettingSource["kind"], number>> = {
  default: 0,
  file: 1,
  env: 2,
  flag: 3,
};

/**
 * What `model` means depends on `endpoint` (a server's model id, or a file), so a model set
 * below the layer that set the endpoint belongs to another setup and is dropped: a file's
 * `"model": "./m.gguf"` does not become a server's model id under `--endpoint`, and a file's
 * server model is not read as a path under `--endpoint none`. `none` itself is no endpoint.
 */
function withModelOfItsLayer(settings: readonly Setting[]): Setting[] {
  const endpoint = settings.find((setting) => setting.spec.flag.name === "endpoint");
  if (endpoint === undefined) return [...settings];
  const endpointRank = LAYER_RANK[endpoint.source.kind];
  return settings.map((setting) => {
    if (setting === endpoint && setting.value === NO_ENDPOINT) {
      return { ...setting, value: undefined };
    }
    if (setting.spec.flag.name === "model" && LAYER_RANK[setting.source.kind] < endpointRank) {
      return { ...setting, value: undefined, source: { kind: "default" } };
    }
    return setting;
  });
}

/** The value used for one setting and its source, or the message for a bad one. */
function chooseValue(
  spec: SettingSpec,
  parsed: Pick<ParsedCommandLine, "flags" | "lists">,
  env: (name: string) => string | undefined,
  file: UserConfig,
): Omit<Setting, "spec"> | string {
  const name = spec.flag.name;
  const fromFlag = spec.kind.type === "list" ? parsed.lists[name] : parsed.flags[name];
  if (fromFlag !== undefined) {
    const problem = typeof fromFlag === "string" ? valueProblem(spec, fromFlag) : undefined;
    return problem === undefined
      ? { value: fromFlag, source: { kind: "flag" } }
      : `--${name} ${problem}`;
  }
  const fromEnv = env(spec.envName);
  if (fromEnv !== undefined && fromEnv !== "") {
    const read = envValue(spec, fromEnv);
    return "problem" in read
      ? `${spec.envName} ${read.problem}`
      : { value: read.value, source: { kind: "env", variable: spec.envName } };
  }
  const fromFile = file.values.get(name);
  if (fromFile !== undefined && file.path !== undefined) {
    return {
      value: fromFile.value,
      source: { kind: "file", path: file.path, line: fromFile.line },
    };
  }
  return { value: undefined, source: { kind: "default" } };
}

/** A variable's text as a value: a list is `:`-separated, as PATH is. */
function envValue(
  spec: SettingSpec,
  text: string,
): { readonly value: SettingValue } | { readonly problem: string } {
  const kind = spec.kind.type;
  switch (kind) {
    case "list":
      return { value: text.split(":").filter((part) => part !== "") };
    case "boolean": {
      const value = envBoolean(text);
      return value === undefined
        ? { problem: `must be "true" or "false" (or 1 or 0), got ${JSON.stringify(text)}` }
        : { value };
    }
    case "integer":
    case "share":
    case "string": {
      const problem = valueProblem(spec, text);
      return problem === undefined ? { value: text } : { problem };
    }
    default:
      kind satisfies never;
      return { problem: "is not a setting" };
  }
}

function withFileRelativePaths(
  setting: Setting,
  valueOf: (name: string) => unknown,
  env: (name: string) => string | undefined,
): Setting {
  const resolveValue = FILE_RELATIVE[setting.spec.flag.name];
  const { value, source } = setting;
  if (source.kind !== "file" || resolveValue === undefined) return setting;
  const base = dirname(source.path);
  // No shell reads the file: a `~/` it holds is expanded here, as a shell would on a flag.
  const path: PathResolver = (given) => {
    const home = given === "~" || given.startsWith("~/") ? env("HOME") : undefined;
    return home ? resolve(home, given.slice(2)) : resolve(base, given);
  };
  if (typeof value === "string") return { ...setting, value: resolveValue(value, path, valueOf) };
  if (isList(value)) {
    return { ...setting, value: value.map((item) => resolveValue(item, path, valueOf)) };
  }
  return setting;
}

function isList(value: SettingValue | undefined): value is readonly string[] {
  return Array.isArray(value);
}
