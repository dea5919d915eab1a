/**
 * `acp --print-config`: every setting's effective value and where it came from, one aligned line
 * each, after a line saying which config file was looked for. It answers "why does the agent do
 * that?" without starting anything. The API key is never shown: only the name of the variable
 * that holds it, and whether that variable is set. Nor is what an endpoint URL carries (a
 * password, a query): it is shown as `***`, with the reason `acp` refuses such a URL.
 */
import type { CliIo, FlagSpec } from "../command_spec.ts";
import type { AcpSettings, Setting, SettingSource } from "./acp_settings.ts";
import { isVariableName } from "../../model/openai/endpoint_key.ts";
import { endpointUrlProblem, shownEndpoint } from "../../model/openai/endpoint_url.ts";

export const PRINT_CONFIG_FLAG: FlagSpec = {
  name: "print-config",
  type: "boolean",
  description: "Print each setting's value and where it came from (flag, LLAMA_AGENT_* " +
    "variable, config file or default), then exit",
};

/** Settings whose value names an environment variable that holds a secret. */
const NAMES_A_SECRET = new Set(["api-key-env"]);

export interface PrintConfigOptions {
  readonly env: CliIo["env"];
  /**
   * What a setting with its default is, where its flag's "(default: ...)" does not say it
   * exactly; an undefined entry falls back to the flag's words.
   */
  readonly defaults?: Readonly<Record<string, string | undefined>>;
}

/** The text `--print-config` prints. */
export function renderConfig(settings: AcpSettings, options: PrintConfigOptions): string {
  const rows = settings.settings.map((setting) => [
    setting.spec.flag.name,
    shownValue(setting, options),
    sourceWords(setting.source),
  ]);
  const widths = [0, 1].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = [
    fileLine(settings.file),
    ...rows.map(([name, value, source]) =>
      `${name!.padEnd(widths[0]!)}  ${value!.padEnd(widths[1]!)}  ${source}`
    ),
  ];
  return lines.join("\n") + "\n";
}

function fileLine(file: AcpSettings["file"]): string {
  if (file.path === undefined) {
    return "Config file: none (neither XDG_CONFIG_HOME nor HOME is an absolute path)";
  }
  if (file.unreadable !== undefined) {
    return `Config file: ${file.path} (not read)\n${file.unreadable}`;
  }
  return `Config file: ${file.path} (${file.exists ? "found" : "not found"})`;
}

function shownValue(setting: Setting, options: PrintConfigOptions): string {
  const { value, spec } = setting;
  if (value === undefined) return defaultWords(spec.flag, options.defaults);
  if (typeof value === "boolean") return String(value);
  if (typeof value !== "string") return value.length === 0 ? "(none)" : value.join(", ");
  if (spec.flag.name === "endpoint") return endpointWords(value);
  if (!NAMES_A_SECRET.has(spec.flag.name)) return value;
  // Something that is no variable name may be the key itself, pasted in the wrong place.
  if (!isVariableName(value)) return "(hidden: not a variable name)";
  const set = options.env(value);
  return `${value} (${set !== undefined && set !== "" ? "set" : "not set"})`;
}

/** An endpoint without what it may carry, and why `acp` refuses it when it does. */
function endpointWords(value: string): string {
  const problem = endpointUrlProblem(value);
  return problem === undefined
    ? value
    : `${shownEndpoint(value)} (refused by acp: --endpoint ${problem})`;
}

function defaultWords(
  flag: FlagSpec,
  defaults: PrintConfigOptions["defaults"],
): string {
  const given = defaults?.[flag.name];
  if (given !== undefined) return given;
  return /\(default: ([^)]*)\)/.exec(flag.description)?.[1] ?? "-";
}

function sourceWords(source: SettingSource): string {
  switch (source.kind) {
    case "flag":
      return "flag";
    case "env":
      return `env ${source.variable}`;
    case "file":
      return `file ${source.path}:${source.line}`;
    case "default":
      return "default";
    default:
      source satisfies never;
      return "";
  }
}
