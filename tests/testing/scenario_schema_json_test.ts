import { assert, assertEquals } from "../helpers/assert.ts";
import { isObject } from "../helpers/json_object.ts";
import { formatIssue } from "../helpers/json_schema_issue.ts";
import { unsupportedKeywords } from "../helpers/json_schema_support.ts";
import { JsonSchemaValidator, type Schema } from "../helpers/json_schema_validator.ts";
import { parseScenarioText } from "../../src/testing/scenarios/scenario_file.ts";
import {
  SCENARIO_SCHEMA_PATH,
  scenarioSchemaText,
} from "../../src/testing/scenarios/scenario_json_schema.ts";

const ROOT = new URL("../../", import.meta.url);
const EXAMPLE = "examples/guard-rails/.claude/hooks-tests/guard-rails.test.jsonc";

async function committedSchema(): Promise<string> {
  return await Deno.readTextFile(new URL(SCENARIO_SCHEMA_PATH, ROOT));
}

Deno.test("the committed JSON Schema is the one the zod schema generates", async () => {
  const committed = await committedSchema();
  assert(
    committed === scenarioSchemaText(),
    `${SCENARIO_SCHEMA_PATH} is out of date with src/testing/scenarios/scenario_schema.ts: ` +
      "run `deno task schema` and commit the result",
  );
});

Deno.test("the JSON Schema is draft-07 and carries the zod descriptions", async () => {
  const schema: unknown = JSON.parse(await committedSchema());
  assert(isObject(schema));
  assertEquals(schema.$schema, "http://json-schema.org/draft-07/schema#");
  assertEquals(schema.title, "llama-agent hooks test scenario");
  const text = JSON.stringify(schema);
  assert(text.includes('"description":"The event to fire; '));
  assert(text.includes('"description":"An unanchored JavaScript regular expression"'));
});

/** The validator honours every keyword but these two; neither decides the samples below. */
function validator(schema: Schema): JsonSchemaValidator {
  const unsupported = unsupportedKeywords(schema, {}).map((p) => p.split(" at ")[0]);
  assertEquals([...new Set(unsupported)], ['keyword "propertyNames"', 'keyword "minItems"']);
  return new JsonSchemaValidator({}, false);
}

async function sample(path: string): Promise<unknown> {
  const text = await Deno.readTextFile(new URL(path, ROOT));
  const parsed = parseScenarioText(path, text);
  assertEquals(parsed.problems, []);
  return parsed.document?.value;
}

Deno.test("the JSON Schema accepts the example scenario file", async () => {
  const schema: Schema = JSON.parse(await committedSchema());
  const issues = validator(schema).validate(schema, await sample(EXAMPLE), "");
  assertEquals(issues.map(formatIssue), []);
});

Deno.test("the JSON Schema refuses what the loader refuses", async () => {
  const schema: Schema = JSON.parse(await committedSchema());
  const bad = {
    cases: [
      { name: "a", event: "BeforeAnything", expect: { stopReason: "end_turn" } },
      { name: "b", event: "Stop", expect: { exitCodes: ["0"] }, timeout: 5 },
    ],
  };
  const pointers = ["/cases/0/event", "/cases/1/expect/exitCodes/0", "/cases/1/timeout"];
  const issues = validator(schema).validate(schema, bad, "")
    .filter((issue) => !issue.message.startsWith("Matches none of"));
  assertEquals(issues.map((issue) => issue.pointer), pointers);
  const loaded = parseScenarioText("bad", JSON.stringify(bad));
  assertEquals(loaded.problems.map((problem) => problem.pointer), pointers);
});
