/**
 * Writes `schemas/hooks-test.schema.json` (`deno task schema`) from the zod schema that
 * validates scenario files. A test fails when the committed file is out of date.
 */
import {
  SCENARIO_SCHEMA_PATH,
  scenarioSchemaText,
} from "../src/testing/scenarios/scenario_json_schema.ts";

if (import.meta.main) {
  const url = new URL(`../${SCENARIO_SCHEMA_PATH}`, import.meta.url);
  await Deno.mkdir(new URL(".", url), { recursive: true });
  await Deno.writeTextFile(url, scenarioSchemaText());
  console.error(`Wrote ${SCENARIO_SCHEMA_PATH}`);
}
