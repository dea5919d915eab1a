import { assertEquals, assertThrows } from "../helpers/assert.ts";
import type { FlagSpec } from "../../src/cli/command_spec.ts";
import { settingSpecs, shareValue, valueProblem } from "../../src/cli/options/setting_spec.ts";

const FLAGS: FlagSpec[] = [
  { name: "ctx-size", type: "string", description: "Context size" },
  { name: "compact-threshold", type: "string", description: "A share" },
  { name: "verbose", type: "boolean", description: "Talk more" },
];

Deno.test("a share is a fraction or a percentage above 0 and at most 1", () => {
  for (const [text, value] of [["0.8", 0.8], ["80%", 0.8], [".5", 0.5], ["1", 1], ["100%", 1]]) {
    assertEquals(shareValue(String(text)), value, String(text));
  }
  assertEquals(shareValue("0.5%"), 0.005);
  assertEquals(shareValue("12.5%"), 0.125);
  for (const text of ["0", "0%", "0.0", "1.5", "101%", "-0.1", "-10%", "abc", "80", "", " 0.8"]) {
    assertEquals(shareValue(text), undefined, text);
  }
  // Only the two written forms: no exponent, sign, space, or percent sign alone.
  for (const text of ["8e-1", "+0.8", "0.8 ", "%", "80 %", "0x1", "1.", "Infinity", "NaN"]) {
    assertEquals(shareValue(text), undefined, text);
  }
});

Deno.test("a flag named as a share is a share setting, and a bad share says what to write", () => {
  const [ctx, share, verbose] = settingSpecs(FLAGS, { "ctx-size": null }, ["compact-threshold"]);
  assertEquals([ctx!.kind, share!.kind, verbose!.kind], [
    { type: "integer" },
    { type: "share" },
    { type: "boolean" },
  ]);
  assertEquals(share!.key, "compactThreshold");
  assertEquals(share!.envName, "LLAMA_AGENT_COMPACT_THRESHOLD");
  assertEquals(valueProblem(share!, "80%"), undefined);
  assertEquals(
    valueProblem(share!, "1.5"),
    'must be a share above 0 and at most 1, such as 0.8 or "80%", got "1.5"',
  );
  // A whole number up to 100 is most likely a percentage without its sign.
  assertEquals(
    valueProblem(share!, "80"),
    'must be a share above 0 and at most 1, such as 0.8 or "80%", got "80": did you mean "80%"?',
  );
  assertEquals(
    valueProblem(share!, "80", "80"),
    'must be a share above 0 and at most 1, such as 0.8 or "80%", got 80: did you mean "80%"?',
  );
  assertEquals(
    valueProblem(share!, "250"),
    'must be a share above 0 and at most 1, such as 0.8 or "80%", got "250"',
  );
});

Deno.test("a share setting must be a string flag of the command", () => {
  assertThrows(
    () => settingSpecs(FLAGS, {}, ["verbose"]),
    Error,
    'Share setting "verbose" is not a string flag of the command',
  );
  assertThrows(
    () => settingSpecs(FLAGS, {}, ["tool-output-share"]),
    Error,
    'Share setting "tool-output-share" is not a string flag of the command',
  );
});
