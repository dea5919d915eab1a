import { casesOfShard, parseShard } from "../../src/testing/scenarios/case_shard.ts";
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";

Deno.test("--shard takes I/N with 1 <= I <= N", () => {
  assertEquals(parseShard("2/4"), { ok: true, shard: { index: 2, count: 4 } });
  assertEquals(parseShard(" 1/1 "), { ok: true, shard: { index: 1, count: 1 } });
  for (const bad of ["0/3", "4/3", "1/0", "3", "a/b", "", "1/2/3", "-1/2", "1.5/3"]) {
    const parsed = parseShard(bad);
    assertEquals(parsed.ok, false, bad);
    if (!parsed.ok) assertStringIncludes(parsed.message, `not "${bad}"`);
  }
});

Deno.test("a shard is every N-th case from its own position: 7 cases in 3 shards", () => {
  const cases = ["a", "b", "c", "d", "e", "f", "g"];
  assertEquals(
    [1, 2, 3].map((index) => casesOfShard(cases, { index, count: 3 })),
    [["a", "d", "g"], ["b", "e"], ["c", "f"]],
  );
  assertEquals(casesOfShard(cases, undefined), cases);
  assertEquals(casesOfShard(["only"], { index: 2, count: 2 }), []);
});
