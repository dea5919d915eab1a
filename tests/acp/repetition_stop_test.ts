/**
 * A generation stopped on verbatim repetition (repetition_stop.ts), through the in-memory agent:
 * the model's generation alone is aborted, never taken for a cancel; the turn ends `max_tokens`
 * with a notice; the model keeps one copy of what it repeated, in the running conversation and in
 * the one a transcript rebuilds. Code with repeated lines is streamed whole.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import type { GenerateRequest, GenerateResult } from "../../src/model/model.ts";
import { transcriptPathFor } from "../../src/agent/transcript/transcript_path.ts";
import {
  conversationFromTranscript,
  readTranscript,
} from "../../src/agent/transcript/transcript_reader.ts";
import { REPETITION_MIN_SPAN } from "../../src/acp/turn/repetition_detector.ts";
import { takeBack } from "../../src/agent/transcript/take_back.ts";
import { noticesOf, withInMemoryAgent } from "./in_memory_agent.ts";
import { reply, type Step, steppedModel } from "./fake_models.ts";
import { logging, readLog, settings } from "./hook_fixtures.ts";

const TOKENS = { prompt: 1, evaluated: 1, generated: 1 };

/**
 * A model that streams `head`, then `unit` again and again until its signal aborts (or 5,000
 * times), as text or as thought; it says what it saw of its signal in `seen`.
 */
function looping(
  head: string,
  unit: string,
  seen: { aborted?: boolean },
  stream: "text" | "thought" = "text",
): Step {
  return (request: GenerateRequest): GenerateResult => {
    const send = stream === "text" ? request.onTextChunk : request.onThoughtChunk;
    let all = head;
    send(head);
    for (let i = 0; i < 5000 && !request.signal.aborted; i++) {
      all += unit;
      send(unit);
    }
    seen.aborted = request.signal.aborted;
    return {
      text: stream === "text" ? all : "",
      thought: stream === "thought" ? all : "",
      toolCalls: [],
      stop: request.signal.aborted ? "cancelled" : "end",
      tokens: TOKENS,
    };
  };
}

Deno.test("an answer looping 'abc abc …' is stopped: max_tokens, a notice, one copy kept, and not a cancel", async () => {
  const seen: { aborted?: boolean } = {};
  let next: GenerateRequest | undefined;
  await withInMemoryAgent({
    files: { ".claude/settings.json": settings({ Stop: [[null, logging("stop.log")]] }) },
    model: steppedModel([
      looping("Here:\n", "abc ", seen),
      (request) => {
        next = request;
        return reply("ok")(request);
      },
    ]),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "say something" }],
    });
    assertEquals(response.stopReason, "max_tokens");
    assertEquals(seen.aborted, true, "the generation was stopped");
    const notices = noticesOf(t.updates, sessionId);
    assertEquals(notices, [
      "The model repeated itself, so its answer was stopped: the same 4 characters 200 times in " +
      'a row ("abc "). It keeps one copy; what followed, a tool call included, was dropped. ' +
      "Send a prompt to let it go on, or try a larger model",
    ]);
    // The client was shown the answer up to where the repetition was found, and no further.
    const shown = t.text(sessionId).replace(notices[0]!, "");
    assertEquals(shown.trimEnd(), ("Here:\n" + "abc ".repeat(REPETITION_MIN_SPAN / 4)).trimEnd());
    // Stop hooks run as at the answer cap: the turn was not cancelled.
    assertEquals((await readLog(`${t.cwd}/stop.log`)).length, 1);

    await t.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    const answer = next?.conversation.find((item) => item.role === "assistant");
    assertEquals(answer, { role: "assistant", segments: [{ type: "text", text: "Here:\nabc " }] });
    // A load rebuilds the same conversation.
    const read = await readTranscript(transcriptPathFor(sessionId, t.env));
    assert(read.ok);
    const records = read.transcript.records;
    const rebuilt = conversationFromTranscript(records);
    assertEquals(rebuilt.find((item) => item.role === "assistant"), answer);
    assert(records.some((r) => r.type === "taken_back" && r.stream === "text"));
  });
});

Deno.test("a code answer with repeated lines is streamed whole and ends the turn as usual", async () => {
  const code = "Here is the fixture:\n```csv\nid,name,score\n" + "0,none,0\n".repeat(40) +
    "```\n```ts\nfunction f() {\n  if (a) {\n    if (b) {\n      x();\n    }\n  }\n}\n" +
    "}\n".repeat(8) + 'const rule = "' + "=".repeat(120) + '";\n' +
    Array.from({ length: 40 }, (_, i) => `assertEquals(double(${i}), ${i * 2});\n`).join("") +
    "```\n";
  const chunks: Step = (request) => {
    for (let i = 0; i < code.length; i += 3) request.onTextChunk(code.slice(i, i + 3));
    return { text: code, thought: "", toolCalls: [], stop: "end", tokens: TOKENS };
  };
  await withInMemoryAgent({ model: steppedModel([chunks]) }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "write a fixture" }],
    });
    assertEquals(response.stopReason, "end_turn");
    assertEquals(t.text(sessionId), code);
    assertEquals(noticesOf(t.updates, sessionId), []);
  });
});

Deno.test("thinking that loops is stopped too, and the notice says it was the thinking", async () => {
  const seen: { aborted?: boolean } = {};
  await withInMemoryAgent({
    model: steppedModel([looping("", "Wait, let me think again. ", seen, "thought")]),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "think" }],
    });
    assertEquals(response.stopReason, "max_tokens");
    assertEquals(seen.aborted, true);
    const [notice] = noticesOf(t.updates, sessionId);
    assertStringIncludes(notice!, "The model repeated itself, so its thinking was stopped");
    assertStringIncludes(notice!, '("Wait, let me think again. ")');
  });
});

Deno.test("a cancel while the model loops is a cancel", async () => {
  let release = () => {};
  const started = new Promise<void>((resolve) => (release = resolve));
  await withInMemoryAgent({
    model: steppedModel([async (request) => {
      request.onTextChunk("one two three ");
      release();
      await new Promise<void>((resolve) =>
        request.signal.addEventListener("abort", () => resolve())
      );
      return {
        text: "one two three ",
        thought: "",
        toolCalls: [],
        stop: "cancelled",
        tokens: TOKENS,
      };
    }]),
  }, async (t) => {
    const sessionId = await t.newSession();
    const prompt = t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "count" }],
    });
    await started;
    await t.agent.notify("session/cancel", { sessionId });
    assertEquals((await prompt).stopReason, "cancelled");
    assertEquals(noticesOf(t.updates, sessionId), []);
  });
});

Deno.test("text taken back comes off the end of the message's segments of its kind", () => {
  const segments = [
    { type: "text" as const, text: "abc" },
    { type: "thought" as const, text: "hm" },
    { type: "text" as const, text: "de" },
    { type: "thought" as const, text: "x" },
  ];
  takeBack(segments, "text", 3);
  assertEquals(segments, [
    { type: "text", text: "ab" },
    { type: "thought", text: "hm" },
    { type: "thought", text: "x" },
  ]);
  takeBack(segments, "thought", 1);
  assertEquals(segments, [{ type: "text", text: "ab" }, { type: "thought", text: "hm" }]);
});
