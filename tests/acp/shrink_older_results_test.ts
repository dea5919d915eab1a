import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import {
  OLDER_RESULT_STUB_TOKENS,
  shrinkOlderResults,
} from "../../src/acp/compaction/shrink_older_results.ts";
import type { AssistantSegment, ConversationItem } from "../../src/model/model.ts";
import { estimateTextTokens } from "../../src/model/token_estimate.ts";

/** `n` lines of one tool's output, `tag 1` … `tag n`. */
function output(tag: string, n: number): string {
  return Array.from({ length: n }, (_, i) => `${tag} ${i + 1}\n`).join("");
}

function toolTurn(tag: string, lines: number): ConversationItem {
  return {
    role: "assistant",
    segments: [
      { type: "text", text: `Reading ${tag}.` },
      {
        type: "tool_call",
        name: "fs_read",
        input: { file_path: `${tag}.txt` },
        result: output(tag, lines),
      },
    ],
  };
}

function resultOf(item: ConversationItem | undefined): string {
  assert(item?.role === "assistant");
  const call = item.segments.find((s): s is Extract<AssistantSegment, { type: "tool_call" }> =>
    s.type === "tool_call"
  );
  assert(call !== undefined);
  return call.result;
}

function session(): ConversationItem[] {
  return [
    { role: "system", text: "system" },
    { role: "user", text: "read alpha" },
    toolTurn("alpha", 200),
    { role: "user", text: "read beta" },
    toolTurn("beta", 200),
    { role: "user", text: "read gamma" },
    toolTurn("gamma", 200),
  ];
}

Deno.test("the oldest result is shortened first, to a head and tail stub with a note, and only as far as needed", () => {
  const before = session();
  const shrunk = shrinkOlderResults(before, estimateTextTokens, 100);
  const alpha = resultOf(shrunk.conversation[2]);
  assert(estimateTextTokens(alpha) <= OLDER_RESULT_STUB_TOKENS, `${estimateTextTokens(alpha)}`);
  assert(alpha.startsWith("alpha 1\n") && alpha.endsWith("alpha 200\n"), alpha);
  const kept = alpha.split("\n").filter((line) => line.startsWith("alpha ")).length;
  assertStringIncludes(alpha, `\n[older output shortened: ${200 - kept} lines cut]\n`);
  assertEquals(shrunk.shortened, 1);
  assertEquals(
    shrunk.freed,
    estimateTextTokens(output("alpha", 200)) - estimateTextTokens(alpha),
  );
  assert(shrunk.freed >= 100);
  assertEquals(resultOf(shrunk.conversation[4]), output("beta", 200), "beta is left as it was");
  assertEquals(shrunk.conversation[3], before[3]);
});

Deno.test("the latest assistant message's results are never shortened, however much is asked for", () => {
  const shrunk = shrinkOlderResults(session(), estimateTextTokens, 1_000_000);
  assertEquals(shrunk.shortened, 2);
  assertStringIncludes(resultOf(shrunk.conversation[2]), "[older output shortened:");
  assertStringIncludes(resultOf(shrunk.conversation[4]), "[older output shortened:");
  assertEquals(resultOf(shrunk.conversation[6]), output("gamma", 200));
  const gained = ["alpha", "beta"].reduce(
    (sum, tag, i) =>
      sum + estimateTextTokens(output(tag, 200)) -
      estimateTextTokens(resultOf(shrunk.conversation[2 + 2 * i])),
    0,
  );
  assertEquals(shrunk.freed, gained);
});

Deno.test("the conversation given is not changed, and text, prompts and the system prompt are kept", () => {
  const before = session();
  const copy = structuredClone(before);
  const shrunk = shrinkOlderResults(before, estimateTextTokens, 1_000_000);
  assertEquals(before, copy);
  assertEquals(shrunk.conversation.length, before.length);
  assertEquals(
    shrunk.conversation.filter((item) => item.role !== "assistant"),
    copy.filter((item) => item.role !== "assistant"),
  );
  const alpha = shrunk.conversation[2];
  assert(alpha?.role === "assistant");
  assertEquals(alpha.segments[0], { type: "text", text: "Reading alpha." });
  assertEquals(alpha.segments[1]?.type === "tool_call" && alpha.segments[1].input, {
    file_path: "alpha.txt",
  });
});

Deno.test("short results are left alone, and shrinking again frees nothing more", () => {
  const short: ConversationItem[] = [
    { role: "user", text: "go" },
    toolTurn("small", 3),
    toolTurn("big", 300),
    toolTurn("latest", 300),
  ];
  const once = shrinkOlderResults(short, estimateTextTokens, 1_000_000);
  assertEquals(resultOf(once.conversation[1]), output("small", 3));
  assertEquals(once.shortened, 1);
  const twice = shrinkOlderResults(once.conversation, estimateTextTokens, 1_000_000);
  assertEquals(twice.freed, 0);
  assertEquals(twice.shortened, 0);
  assertEquals(twice.conversation, once.conversation);
});

Deno.test("nothing to free, or nothing older than the latest message, changes nothing", () => {
  assertEquals(shrinkOlderResults(session(), estimateTextTokens, 0).freed, 0);
  const one = [{ role: "user" as const, text: "x" }, toolTurn("only", 500)];
  const shrunk = shrinkOlderResults(one, estimateTextTokens, 1_000);
  assertEquals(shrunk, { conversation: one, freed: 0, shortened: 0 });
});

Deno.test("the stub's size and the note's words can be chosen", () => {
  const shrunk = shrinkOlderResults(session(), estimateTextTokens, 1, {
    stubTokens: 200,
    note: (cut) => `<${cut.lines} gone>`,
  });
  const alpha = resultOf(shrunk.conversation[2]);
  assert(estimateTextTokens(alpha) <= 200);
  assert(estimateTextTokens(alpha) > OLDER_RESULT_STUB_TOKENS, "a larger stub keeps more");
  assert(/\n<\d+ gone>\n/.test(alpha), alpha);
});
