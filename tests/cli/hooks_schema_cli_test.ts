/**
 * `hooks schema` through the real launcher: it prints the committed scenario schema, which names
 * the URL each release publishes it at, and its help says how to point a scenario at it.
 */
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { REPO_ROOT, runCli } from "../helpers/run_cli.ts";
import { SCENARIO_SCHEMA_URL } from "../../src/testing/scenarios/scenario_json_schema.ts";

async function inTempDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "llama-agent-hooks-schema-" });
  try {
    return await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("hooks schema prints the committed scenario schema, whose $id is the published URL", async () => {
  await inTempDir(async (dir) => {
    const run = await runCli(["hooks", "schema"], { cwd: dir, home: dir });
    assertEquals([run.code, run.stderr], [0, ""]);
    const committed = await Deno.readTextFile(`${REPO_ROOT}/schemas/hooks-test.schema.json`);
    assertEquals(run.stdout, committed);
    const schema = JSON.parse(run.stdout);
    assertEquals(schema.$id, SCENARIO_SCHEMA_URL);
    assertEquals(schema.$schema, "http://json-schema.org/draft-07/schema#");
  });
});

Deno.test("hooks schema --help shows the $schema line to paste; an argument is a usage error", async () => {
  await inTempDir(async (dir) => {
    const help = await runCli(["hooks", "schema", "--help"], { cwd: dir, home: dir });
    assertEquals(help.code, 0);
    assertStringIncludes(help.stdout, `"$schema": "${SCENARIO_SCHEMA_URL}"`);
    assertStringIncludes(help.stdout, "llama-agent hooks schema > .claude/hooks-tests/");
    const extra = await runCli(["hooks", "schema", "extra"], { cwd: dir, home: dir });
    assertEquals([extra.code, extra.stdout], [2, ""]);
    assertStringIncludes(extra.stderr, "extra");
  });
});
