/**
 * A command's flags seen as settings that a config file and the environment may also give: each
 * flag's config-file key (its camelCase name, `ctx-size` → `ctxSize`), its environment variable
 * (`LLAMA_AGENT_` and its UPPER_SNAKE name, `LLAMA_AGENT_CTX_SIZE`), and what a value must be.
 * Derived from the flag table, so a new flag is a setting everywhere without a second list.
 */
import type { FlagSpec } from "../command_spec.ts";
import { nearestName } from "../../nearest_name.ts";

export const SETTING_ENV_PREFIX = "LLAMA_AGENT_";

/** The most an integer setting may be, and how a message says it ("2147483 seconds"). */
export interface IntegerLimit {
  readonly max: number;
  readonly said: string;
}

/**
 * What a setting's value is; choices of a string setting come from its flag. A share is a part
 * of a whole: a number above 0 and at most 1, written `0.8` or `80%`.
 */
export type SettingKind =
  | { readonly type: "string" }
  | { readonly type: "integer"; readonly limit?: IntegerLimit }
  | { readonly type: "share" }
  | { readonly type: "list" }
  | { readonly type: "boolean" };

export interface SettingSpec {
  readonly flag: FlagSpec;
  /** The key in the config file. */
  readonly key: string;
  /** The environment variable. */
  readonly envName: string;
  readonly kind: SettingKind;
}

/**
 * The settings of `flags`. A string flag named in `integers` takes a positive integer (at most
 * its limit, if it has one), one named in `shares` a share; a repeatable flag takes a list.
 */
export function settingSpecs(
  flags: readonly FlagSpec[],
  integers: Readonly<Record<string, IntegerLimit | null>>,
  shares: readonly string[] = [],
): SettingSpec[] {
  for (
    const [name, what] of [
      ...Object.keys(integers).map((name) => [name, "Integer"] as const),
      ...shares.map((name) => [name, "Share"] as const),
    ]
  ) {
    if (!flags.some((flag) => flag.name === name && flag.type === "string")) {
      throw new Error(`${what} setting "${name}" is not a string flag of the command`);
    }
  }
  return flags.map((flag) => ({
    flag,
    key: flag.name.replace(/-([a-z0-9])/g, (_, letter: string) => letter.toUpperCase()),
    envName: SETTING_ENV_PREFIX + flag.name.toUpperCase().replaceAll("-", "_"),
    kind: kindOf(flag, integers, shares),
  }));
}

function kindOf(
  flag: FlagSpec,
  integers: Readonly<Record<string, IntegerLimit | null>>,
  shares: readonly string[],
): SettingKind {
  if (flag.type === "boolean") return { type: "boolean" };
  if (flag.repeatable) return { type: "list" };
  if (shares.includes(flag.name)) return { type: "share" };
  const limit = integers[flag.name];
  if (limit === undefined) return { type: "string" };
  return limit === null ? { type: "integer" } : { type: "integer", limit };
}

/**
 * Why `text` is not a value of a string, integer or share setting, as the end of a message
 * ("must be a positive integer, got -3"); undefined when it is one. `shown` is how the message
 * quotes the value (as the user wrote it: a JSON number stays unquoted).
 */
export function valueProblem(
  spec: SettingSpec,
  text: string,
  shown: string = JSON.stringify(text),
): string | undefined {
  const kind = spec.kind;
  switch (kind.type) {
    case "integer":
      if (!/^[1-9][0-9]*$/.test(text)) return `must be a positive integer, got ${shown}`;
      if (kind.limit !== undefined && Number(text) > kind.limit.max) {
        return `must be at most ${kind.limit.said}, got ${text}`;
      }
      return undefined;
    case "share":
      return shareValue(text) === undefined ? shareProblem(text, shown) : undefined;
    case "string": {
      const choices = spec.flag.choices;
      if (choices === undefined || choices.includes(text)) return undefined;
      const meant = nearestName(text, choices);
      return `must be one of ${choices.map((c) => `"${c}"`).join(", ")}, not ${shown}` +
        (meant === undefined ? "" : `: did you mean "${meant}"?`);
    }
    case "list":
    case "boolean":
      return undefined;
    default:
      kind satisfies never;
      return undefined;
  }
}

/** What a share's text means (`"80%"` and `"0.8"` are 0.8); undefined when it is no share. */
export function shareValue(text: string): number | undefined {
  const written = /^(\d+(?:\.\d+)?|\.\d+)(%?)$/.exec(text);
  if (written === null) return undefined;
  const value = Number(written[1]) / (written[2] === "%" ? 100 : 1);
  return value > 0 && value <= 1 ? value : undefined;
}

function shareProblem(text: string, shown: string): string {
  // "80" is most likely a percentage without its sign.
  const percent = /^[1-9][0-9]*$/.test(text) && Number(text) <= 100 ? `${text}%` : undefined;
  return `must be a share above 0 and at most 1, such as 0.8 or "80%", got ${shown}` +
    (percent === undefined ? "" : `: did you mean "${percent}"?`);
}

/** An environment variable's words for a boolean setting. */
export function envBoolean(text: string): boolean | undefined {
  if (text === "1" || text === "true") return true;
  if (text === "0" || text === "false") return false;
  return undefined;
}
