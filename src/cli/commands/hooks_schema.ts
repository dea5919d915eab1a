/**
 * `llama-agent hooks schema`: prints the JSON Schema of scenario files, so an editor can check
 * them where no checkout of llama-agent lies beside the repository (a downloaded binary).
 */
import type { CliCommand, CommandSpec } from "../command_spec.ts";
import { EXIT } from "../command_spec.ts";
import { fail } from "../start_command.ts";
import { parseCommandLine, renderHelp } from "../parse_command_line.ts";
import { SCENARIO_SUFFIX } from "../../testing/scenarios/discover_scenarios.ts";
import {
  SCENARIO_SCHEMA_URL,
  scenarioSchemaText,
} from "../../testing/scenarios/scenario_json_schema.ts";

const spec: CommandSpec = {
  path: ["hooks", "schema"],
  summary: "print the JSON Schema of hooks-test scenario files",
  description:
    `Prints the JSON Schema (draft-07) that *${SCENARIO_SUFFIX} scenario files follow.\n` +
    "Each release publishes the same file; a scenario that names it is checked and completed\n" +
    "by editors that read JSON Schema (VS Code, Zed, JetBrains):\n" +
    "\n" +
    `  "$schema": "${SCENARIO_SCHEMA_URL}"\n` +
    "\n" +
    "To check offline, or against this binary's version exactly, write it beside the\n" +
    'scenarios and name it by a relative path ("$schema": "./hooks-test.schema.json").',
  flags: [],
  positionals: [],
  examples: [
    "llama-agent hooks schema > .claude/hooks-tests/hooks-test.schema.json",
  ],
};

export const hooksSchemaCommand: CliCommand = {
  spec,
  run(args: readonly string[], io): Promise<number> {
    const parsed = parseCommandLine(spec, args);
    if (!parsed.ok) return Promise.resolve(fail(io, parsed.error).exitCode);
    io.stdout(parsed.value.help ? renderHelp(spec) : scenarioSchemaText());
    return Promise.resolve(EXIT.ok);
  },
};
