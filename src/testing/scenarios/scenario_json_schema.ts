/**
 * The JSON Schema of scenario files, made from the zod schema that validates them: what
 * `hooks schema` prints, what `schemas/hooks-test.schema.json` holds and what each release
 * publishes at `SCENARIO_SCHEMA_URL`, so an editor checks a scenario without a checkout.
 *
 * The target is draft-07: VS Code's JSON language service implements it fully, while 2019-09 and
 * 2020-12 schemas are only partly supported there (and flagged as such).
 */
import { z } from "zod";
import { ScenarioFile } from "./scenario_schema.ts";

/** Where the schema lies in the repository, relative to its root. */
export const SCENARIO_SCHEMA_PATH = "schemas/hooks-test.schema.json";

/** The newest release's copy: the `"$schema"` a scenario names to be checked anywhere. */
export const SCENARIO_SCHEMA_URL =
  "https://github.com/llama-agent/llama-agent/releases/latest/download/hooks-test.schema.json";

/** The schema's text, exactly as it is committed and published. */
export function scenarioSchemaText(): string {
  const { $schema, ...rest } = z.toJSONSchema(ScenarioFile, { target: "draft-07", io: "input" });
  const schema = {
    $schema,
    $id: SCENARIO_SCHEMA_URL,
    title: "llama-agent hooks test scenario",
    description: "Cases that `llama-agent hooks test` runs against a repository's Claude Code " +
      "hooks: event cases (one event, a partial payload, the combined outcome) and session " +
      "cases (a scripted client and model, what happened end to end)",
    ...rest,
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}
