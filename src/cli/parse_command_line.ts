/**
 * Parses one command's arguments against its own flag table. Unknown flags, missing values,
 * values outside a flag's choices and stray positionals are usage errors that say what to run,
 * and what was probably meant when a flag or value is a typo away from a known one.
 */
import type { CommandSpec, FlagSpec } from "./command_spec.ts";
import { nearestName } from "../nearest_name.ts";

export interface ParsedCommandLine {
  readonly help: boolean;
  readonly flags: Readonly<Record<string, string | boolean | undefined>>;
  /** Every value of each repeatable flag that was given, in the order given. */
  readonly lists: Readonly<Record<string, readonly string[]>>;
  readonly positionals: readonly string[];
}

export type ParseResult =
  | { readonly ok: true; readonly value: ParsedCommandLine }
  | { readonly ok: false; readonly error: string };

export function commandName(spec: CommandSpec): string {
  return ["llama-agent", ...spec.path].join(" ");
}

export function parseCommandLine(spec: CommandSpec, args: readonly string[]): ParseResult {
  const name = commandName(spec);
  const hint = `run "${name} --help" for usage`;
  const flags: Record<string, string | boolean | undefined> = {};
  const lists: Record<string, string[]> = {};
  const positionals: string[] = [];
  let help = false;

  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (arg === "--help" || arg === "-h") {
      help = true;
      continue;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const written = eq === -1 ? arg : arg.slice(0, eq);
    const negated = negatedFlag(spec.flags, written);
    if (negated !== undefined) {
      if (eq !== -1) {
        return { ok: false, error: `Flag "${written}" takes no value: ${hint}` };
      }
      flags[negated.name] = false;
      continue;
    }
    const flag = findFlag(spec.flags, written);
    if (flag === undefined) {
      const meant = meantFlag(spec.flags, written);
      const detail = meant === undefined ? hint : `did you mean "${meant}"? (${hint})`;
      return { ok: false, error: `Unknown flag "${written}" for "${name}": ${detail}` };
    }
    if (flag.type === "boolean") {
      if (eq !== -1) {
        return { ok: false, error: `Flag "--${flag.name}" takes no value: ${hint}` };
      }
      flags[flag.name] = true;
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) {
      value = arg.slice(eq + 1);
    } else {
      value = args[i + 1];
      i++;
    }
    if (value === undefined) {
      return {
        ok: false,
        error: `Flag "--${flag.name}" needs a value (${flag.valueName ?? "VALUE"}): ${hint}`,
      };
    }
    if (flag.choices && !flag.choices.includes(value)) {
      const accepted = flag.choices.map((c) => `"${c}"`).join(", ");
      const meant = nearestName(value, flag.choices);
      const guess = meant === undefined ? "" : `did you mean "${meant}"? `;
      return {
        ok: false,
        error: `Flag "--${flag.name}" does not accept "${value}": ${guess}use one of ${accepted}`,
      };
    }
    flags[flag.name] = value;
    if (flag.repeatable) (lists[flag.name] ??= []).push(value);
  }

  if (!help) {
    const required = spec.positionals.filter((p) => p.required);
    if (positionals.length < required.length) {
      const missing = required[positionals.length]!;
      return { ok: false, error: `Missing argument ${missing.name} for "${name}": ${hint}` };
    }
    if (positionals.length > spec.positionals.length) {
      const extra = positionals[spec.positionals.length]!;
      return { ok: false, error: `Unexpected argument "${extra}" for "${name}": ${hint}` };
    }
  }
  return { ok: true, value: { help, flags, lists, positionals } };
}

function findFlag(flags: readonly FlagSpec[], written: string): FlagSpec | undefined {
  if (written.startsWith("--")) return flags.find((f) => f.name === written.slice(2));
  return flags.find((f) => f.short !== undefined && `-${f.short}` === written);
}

/** The negatable boolean flag that `--no-<name>` turns off. */
function negatedFlag(flags: readonly FlagSpec[], written: string): FlagSpec | undefined {
  if (!written.startsWith("--no-")) return undefined;
  const name = written.slice("--no-".length);
  return flags.find((f) => f.negatable === true && f.type === "boolean" && f.name === name);
}

/** The long flag a misspelt `--name` most likely meant (short flags are too short to guess). */
function meantFlag(flags: readonly FlagSpec[], written: string): string | undefined {
  if (!written.startsWith("--")) return undefined;
  const names = flags.flatMap((f) => f.negatable ? [f.name, `no-${f.name}`] : [f.name]);
  const meant = nearestName(written.slice(2), [...names, "help"]);
  return meant === undefined ? undefined : `--${meant}`;
}

/**
 * A flag's help text with its accepted values, unless the description already names each of
 * them (those that explain every value, such as --compat's, stay as written).
 */
export function describeFlag(flag: FlagSpec): string {
  const choices = flag.choices ?? [];
  const words = new Set(flag.description.split(/[^\w-]+/));
  return choices.every((choice) => words.has(choice))
    ? flag.description
    : `${flag.description}; one of: ${choices.join(", ")}`;
}

/** The help text of one command: usage line, description, arguments, flags, examples. */
export function renderHelp(spec: CommandSpec): string {
  const name = commandName(spec);
  const usageArgs = spec.positionals.map((p) => (p.required ? p.name : `[${p.name}]`));
  const lines = [
    `${name}: ${spec.summary}`,
    "",
    `Usage: ${
      [name, ...usageArgs, spec.flags.length > 0 ? "[flags]" : ""].filter(Boolean).join(" ")
    }`,
  ];
  if (spec.description) lines.push("", spec.description);
  if (spec.positionals.length > 0) {
    lines.push("", "Arguments:");
    const width = Math.max(...spec.positionals.map((p) => p.name.length));
    for (const p of spec.positionals) lines.push(`  ${p.name.padEnd(width)}  ${p.description}`);
  }
  const flagRows = [
    ...spec.flags.map((f) => ({
      left: `${f.short ? `-${f.short}, ` : ""}--${f.negatable ? "[no-]" : ""}${f.name}${
        f.type === "string" ? ` ${f.valueName ?? "VALUE"}` : ""
      }`,
      right: describeFlag(f),
    })),
    { left: "-h, --help", right: "Show this help" },
  ];
  const width = Math.max(...flagRows.map((r) => r.left.length));
  lines.push("", "Flags:");
  for (const row of flagRows) lines.push(`  ${row.left.padEnd(width)}  ${row.right}`);
  if (spec.examples && spec.examples.length > 0) {
    lines.push("", "Examples:");
    for (const example of spec.examples) lines.push(`  ${example}`);
  }
  return lines.join("\n") + "\n";
}
