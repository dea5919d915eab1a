/**
 * Writes `schemas/hooks-test.schema.json`, the JSON Schema editors use to complete and check
 * scenario files, from the zod schema that validates them (`deno task schema`). A test fails when
 * the committed file is out of date.
 *
 * The target is draft-07: VS Code's JSON language service implements it fully, while 2019-09 and
 * 2020-12 schemas are only partly supported there (and flagged as such).
 */
import { z } from "zod";
import { ScenarioFile } from "../src/testing/scenario_schema.ts";

/** The schema file, relative to the repository root. */
export const SCENARIO_SCHEMA_PATH = "schemas/hooks-test.schema.json";

/** The text of the schema file, exactly as it is committed. */
export function scenarioSchemaText(): string {
  const { $schema, ...rest } = z.toJSONSchema(ScenarioFile, { target: "draft-07", io: "input" });
  const schema = {
    $schema,
    title: "llama-agent hooks test scenario",
    description: "Cases that `llama-agent hooks test` runs against a repository's Claude Code " +
      "hooks: event cases (one event, a partial payload, the combined outcome) and session " +
      "cases (a scripted client and model, what happened end to end)",
    ...rest,
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}

if (import.meta.main) {
  const url = new URL(`../${SCENARIO_SCHEMA_PATH}`, import.meta.url);
  await Deno.mkdir(new URL(".", url), { recursive: true });
  await Deno.writeTextFile(url, scenarioSchemaText());
  console.error(`Wrote ${SCENARIO_SCHEMA_PATH}`);
}
