import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { transcriptPathFor } from "../../src/agent/transcript/transcript_path.ts";
import { AgentError } from "../../src/error.ts";
import type {
  GenerateRequest,
  GenerateResult,
  Model,
  ModelSession,
} from "../../src/model/model.ts";
import { estimatePromptTokens } from "../../src/model/token_estimate.ts";
import { answerTokenCap } from "../../src/model/answer_cap.ts";
import { SUMMARY_SYSTEM_PROMPT } from "../../src/acp/compaction/conversation_summary.ts";
import { SUMMARY_HEADING } from "../../src/acp/turn/system_prompt.ts";
import { noticesOf, withInMemoryAgent } from "./in_memory_agent.ts";
import { waitUntil } from "../helpers/wait_until.ts";

const TOKENS = { prompt: 0, evaluated: 0, generated: 1 };

/** What a model that decides by what it is asked saw, call by call. */
interface Seen {
  readonly summaryRequests: GenerateRequest[];
  readonly turnRequests: GenerateRequest[];
}

/**
 * A model on a server with a context of `contextSize` tokens that refuses a longer prompt as
 * llama-server does (counted by the same estimate the agent uses where it has no tokenizer): a
 * summary request is answered with a numbered summary; a prompt asks for a file read, and the
 * file's content is answered with "done".
 */
function contextModel(
  contextSize: number,
  seen: Seen,
  options: {
    summary?: (n: number) => GenerateResult | Promise<GenerateResult>;
    /** The server's tokenizer takes this share of the agent's estimate (1: the same). */
    serverShare?: number;
  } = {},
): () => Promise<Model> {
  let summaries = 0;
  const session: ModelSession = {
    contextSize,
    generate(request) {
      const prompt = Math.ceil(
        estimatePromptTokens(request.conversation, request.tools) * (options.serverShare ?? 1),
      );
      if (prompt > contextSize) {
        return Promise.reject(
          new AgentError("CONTEXT_FULL", `the request exceeds the available context size`),
        );
      }
      const first = request.conversation[0];
      if (first?.role === "system" && first.text === SUMMARY_SYSTEM_PROMPT) {
        seen.summaryRequests.push(request);
        summaries++;
        if (options.summary) return Promise.resolve(options.summary(summaries));
        const text = `SUMMARY-${summaries}: the user had files read.`;
        return Promise.resolve({ text, thought: "", toolCalls: [], stop: "end", tokens: TOKENS });
      }
      seen.turnRequests.push(request);
      const last = request.conversation.at(-1);
      if (last?.role === "user") {
        return Promise.resolve({
          text: "",
          thought: "",
          toolCalls: [{ name: "fs_read", input: { file_path: "data.txt" } }],
          stop: "tool_calls",
          tokens: { ...TOKENS, prompt },
        });
      }
      request.onTextChunk("done");
      return Promise.resolve({
        text: "done",
        thought: "",
        toolCalls: [],
        stop: "end",
        tokens: { ...TOKENS, prompt },
      });
    },
    dispose: () => Promise.resolve(),
  };
  return () =>
    Promise.resolve({
      displayName: "context model",
      openSession: () => Promise.resolve(session),
      dispose: () => Promise.resolve(),
    });
}

/** A file of numbers: tokenizes at about one token a character, as real command output does. */
const NUMBERS = Array.from({ length: 120 }, (_, i) => `${i * 7919} ${i * 104729}`).join("\n");

async function records(env: (name: string) => string | undefined, sessionId: string) {
  const text = await Deno.readTextFile(transcriptPathFor(sessionId, env));
  return text.trim().split("\n").map((line) => JSON.parse(line));
}

Deno.test("twelve turns of large tool output in a 4096-token context all end end_turn, compacted on the way", async () => {
  const seen: Seen = { summaryRequests: [], turnRequests: [] };
  await withInMemoryAgent({
    files: { "data.txt": NUMBERS },
    model: contextModel(4096, seen),
  }, async (t) => {
    const sessionId = await t.newSession();
    for (let i = 0; i < 12; i++) {
      const answer = await t.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: `read it again (${i})` }],
      });
      assertEquals(answer.stopReason, "end_turn", `turn ${i + 1}`);
    }
    assert(seen.summaryRequests.length > 0, "the conversation was compacted");
    assertEquals(seen.summaryRequests[0]?.tools, [], "a summary request offers no tools");
    const last = seen.turnRequests.at(-1);
    const system = last?.conversation[0];
    assert(system?.role === "system");
    assertStringIncludes(system.text, SUMMARY_HEADING, "the model reads the summary afterwards");
    assertStringIncludes(system.text, "SUMMARY-");
    for (const request of seen.turnRequests) {
      assert(estimatePromptTokens(request.conversation, request.tools) <= 4096);
    }
    const notices = noticesOf(t.updates, sessionId);
    assert(notices.some((n) => n.includes("compacted into a summary")), notices.join("\n"));
    const usage = t.updates.filter((u) => u.update.sessionUpdate === "usage_update");
    assert(usage.length >= 12, "a usage_update follows model calls");
    for (const u of usage) {
      if (u.update.sessionUpdate !== "usage_update") continue;
      assertEquals(u.update.size, 4096);
      assert(u.update.used <= 4096);
    }
  });
});

Deno.test("a session loaded after a compaction continues from the same compacted state", async () => {
  const seen: Seen = { summaryRequests: [], turnRequests: [] };
  await withInMemoryAgent({
    files: { "data.txt": NUMBERS },
    model: contextModel(4096, seen),
  }, async (t) => {
    const sessionId = await t.newSession();
    for (let i = 0; i < 6; i++) {
      await t.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: `read it (${i})` }],
      });
    }
    assert(seen.summaryRequests.length > 0, "compacted before the load");
    const live = seen.turnRequests.at(-1)!;
    await t.agent.request("session/close", { sessionId });
    await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] });
    await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "and once more" }],
    });
    const afterLoad = seen.turnRequests.find((r) =>
      r.conversation.some((item) => item.role === "user" && item.text === "and once more")
    )!;
    // What came before the new prompt is what the live session held at its last request.
    const before = afterLoad.conversation.findIndex((item) =>
      item.role === "user" && item.text === "and once more"
    );
    assertEquals(afterLoad.conversation[0], live.conversation[0], "the same summary");
    // The live request ended with the last turn's call; that turn's answer followed it.
    assertEquals(
      afterLoad.conversation.slice(1, before - 1),
      live.conversation.slice(1, -1),
      "the items kept",
    );
    const lastTurn = afterLoad.conversation[before - 1];
    assert(lastTurn?.role === "assistant");
    assertEquals(lastTurn.segments.map((s) => s.type), ["tool_call", "text"]);
    const kinds = (await records(t.env, sessionId)).map((r) => r.type);
    assert(kinds.includes("conversation"), "the compaction is in the transcript");
  });
});

Deno.test("/compact summarises everything, with the focus in the request, and /clear forgets it", async () => {
  const seen: Seen = { summaryRequests: [], turnRequests: [] };
  await withInMemoryAgent({
    files: { "data.txt": "small\n" },
    model: contextModel(8192, seen),
  }, async (t) => {
    const sessionId = await t.newSession();
    await waitUntil(
      () => t.updates.some((u) => u.update.sessionUpdate === "available_commands_update"),
      "the commands",
    );
    const commands = t.updates.find((u) => u.update.sessionUpdate === "available_commands_update");
    assert(commands?.update.sessionUpdate === "available_commands_update");
    assertEquals(commands.update.availableCommands.map((c) => c.name), ["compact", "clear"]);
    await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "read data" }],
    });
    const compacted = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/compact keep the file names" }],
    });
    assertEquals(compacted.stopReason, "end_turn");
    assertEquals(seen.summaryRequests.length, 1);
    const ask = seen.summaryRequests[0]!.conversation.at(-1);
    assert(ask?.role === "user");
    assertStringIncludes(ask.text, "Focus on: keep the file names");
    assertStringIncludes(ask.text, "User: read data");
    await t.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    const askedWith = (text: string) =>
      seen.turnRequests.find((r) => {
        const last = r.conversation.at(-1);
        return last?.role === "user" && last.text === text;
      })!;
    let request = askedWith("go");
    assertEquals(
      request.conversation.map((i) => i.role),
      ["system", "user"],
      "only the new prompt",
    );
    assert(request.conversation[0]?.role === "system");
    assertStringIncludes(request.conversation[0].text, "SUMMARY-1");

    await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/clear" }],
    });
    await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "anew" }],
    });
    request = askedWith("anew");
    assertEquals(request.conversation.map((i) => i.role), ["system", "user"]);
    assert(request.conversation[0]?.role === "system");
    assert(!request.conversation[0].text.includes("SUMMARY-1"), "the summary is gone too");
    const notices = noticesOf(t.updates, sessionId);
    assert(notices.some((n) => n.includes("cleared")), notices.join("\n"));
  });
});

Deno.test("/compact on an empty session says there is nothing to compact and asks no model", async () => {
  const seen: Seen = { summaryRequests: [], turnRequests: [] };
  await withInMemoryAgent({ model: contextModel(4096, seen) }, async (t) => {
    const sessionId = await t.newSession();
    const answer = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/compact" }],
    });
    assertEquals(answer.stopReason, "end_turn");
    assertEquals(seen.summaryRequests.length + seen.turnRequests.length, 0);
    assert(noticesOf(t.updates, sessionId).some((n) => n.includes("nothing to compact")));
  });
});

Deno.test("a summary answered with a tool call or nothing falls back to dropping the oldest turns", async () => {
  for (
    const bad of [
      { text: "", thought: "", toolCalls: [], stop: "end", tokens: TOKENS },
      {
        text: "",
        thought: "",
        toolCalls: [{ name: "fs_read", input: {} }],
        stop: "tool_calls",
        tokens: TOKENS,
      },
    ] as GenerateResult[]
  ) {
    const seen: Seen = { summaryRequests: [], turnRequests: [] };
    await withInMemoryAgent({
      files: { "data.txt": NUMBERS },
      model: contextModel(4096, seen, { summary: () => bad }),
    }, async (t) => {
      const sessionId = await t.newSession();
      for (let i = 0; i < 8; i++) {
        const answer = await t.agent.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: `read (${i})` }],
        });
        assertEquals(answer.stopReason, "end_turn");
      }
      assert(seen.summaryRequests.length > 0);
      const notices = noticesOf(t.updates, sessionId);
      assert(notices.some((n) => n.includes("no summary could be made")), notices.join("\n"));
    });
  }
});

Deno.test("a context too small for the fixed prompt ends the first turn saying so, naming a size that holds it, and does not loop", async () => {
  // The default system prompt in 512 tokens; a long AGENTS.md in 2048, where the size that would
  // do is over 2048 and so has an answer cap over the 512 the smaller size had.
  const cases: { context: number; files: Record<string, string> }[] = [
    { context: 512, files: {} },
    {
      context: 2048,
      files: { "AGENTS.md": "Keep the numbers 1234 5678 9012 in mind.\n".repeat(60) },
    },
  ];
  for (const { context, files } of cases) {
    const seen: Seen = { summaryRequests: [], turnRequests: [] };
    await withInMemoryAgent({ files, model: contextModel(context, seen) }, async (t) => {
      const sessionId = await t.newSession();
      const answer = await t.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "hello" }],
      });
      assertEquals(answer.stopReason, "max_tokens");
      assertEquals(seen.turnRequests.length + seen.summaryRequests.length, 0);
      const notices = noticesOf(t.updates, sessionId);
      const said = notices.find((n) => n.includes("--ctx-size")) ?? notices.join("\n");
      // The size it names holds the fixed prompt and the answer cap of that size, and is the
      // least that does.
      const [fixed, size] = [/\(([\d,]+) tokens: the system prompt/, /--ctx-size (\d+) or more/]
        .map((pattern) => Number(pattern.exec(said)?.[1]?.replaceAll(",", "")));
      assert(fixed! + answerTokenCap(size!) <= size!, said);
      assert(fixed! + answerTokenCap(size! - 1) > size! - 1, said);
    });
  }
});

Deno.test("a prompt too long for the context is not kept: the next prompt is answered", async () => {
  const seen: Seen = { summaryRequests: [], turnRequests: [] };
  await withInMemoryAgent(
    { files: { "data.txt": "x\n" }, model: contextModel(4096, seen) },
    async (t) => {
      const sessionId = await t.newSession();
      const huge = await t.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: NUMBERS.repeat(3) }],
      });
      assertEquals(huge.stopReason, "max_tokens");
      assert(noticesOf(t.updates, sessionId).some((n) => n.includes("not sent to the model")));
      const next = await t.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "small" }],
      });
      assertEquals(next.stopReason, "end_turn");
      const request = seen.turnRequests.at(-1)!;
      assert(
        !request.conversation.some((i) => i.role === "user" && i.text.length > 1000),
        "the long prompt is not in the history",
      );
    },
  );
});

Deno.test("the round limit ends the turn with a notice that says so", async () => {
  const seen: Seen = { summaryRequests: [], turnRequests: [] };
  const looping: () => Promise<Model> = () =>
    Promise.resolve({
      displayName: "loop",
      openSession: () =>
        Promise.resolve({
          contextSize: 8192,
          generate: (request: GenerateRequest) => {
            seen.turnRequests.push(request);
            return Promise.resolve({
              text: "",
              thought: "",
              toolCalls: [{ name: "fs_glob", input: { pattern: "*" } }],
              stop: "tool_calls" as const,
              tokens: TOKENS,
            });
          },
          dispose: () => Promise.resolve(),
        }),
      dispose: () => Promise.resolve(),
    });
  await withInMemoryAgent({ model: looping, maxToolRounds: 2 }, async (t) => {
    const sessionId = await t.newSession();
    const answer = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    assertEquals(answer.stopReason, "max_turn_requests");
    assert(noticesOf(t.updates, sessionId).some((n) => n.includes("--max-tool-rounds")));
  });
});

/** Hooks of the claude profile that keep each payload they read, and one that may block. */
function compactHookFiles(preCompactExit: number): Record<string, string> {
  const record = (name: string, exit: number) =>
    `#!/bin/sh\ncat > "$CLAUDE_PROJECT_DIR/${name}.json"\n` +
    (exit === 2 ? 'echo "keep the history" >&2\n' : 'echo "Mention the file names."\n') +
    `exit ${exit}\n`;
  const hook = (script: string) => [{ hooks: [{ type: "command", command: script }] }];
  return {
    ".claude/settings.json": JSON.stringify({
      hooks: {
        PreCompact: hook("$CLAUDE_PROJECT_DIR/hooks/pre.sh"),
        PostCompact: hook("$CLAUDE_PROJECT_DIR/hooks/post.sh"),
      },
    }),
    "hooks/pre.sh": record("pre", preCompactExit),
    "hooks/post.sh": record("post", 0),
    "data.txt": "small\n",
  };
}

Deno.test("claude profile: /compact fires PreCompact and PostCompact with Claude Code's payloads, and what PreCompact prints joins the instructions", async () => {
  const seen: Seen = { summaryRequests: [], turnRequests: [] };
  await withInMemoryAgent({
    profile: "claude",
    files: compactHookFiles(0),
    model: contextModel(8192, seen),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "read data" }],
    });
    await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/compact the API notes" }],
    });
    const pre = JSON.parse(await Deno.readTextFile(`${t.cwd}/pre.json`));
    assertEquals(pre.hook_event_name, "PreCompact");
    assertEquals(pre.trigger, "manual");
    assertEquals(pre.custom_instructions, "the API notes");
    assertEquals(pre.session_id, sessionId);
    const post = JSON.parse(await Deno.readTextFile(`${t.cwd}/post.json`));
    assertEquals(post.hook_event_name, "PostCompact");
    assertEquals(post.trigger, "manual");
    assertEquals(post.compact_summary, "SUMMARY-1: the user had files read.");
    const ask = seen.summaryRequests[0]!.conversation.at(-1);
    assert(ask?.role === "user");
    assertStringIncludes(ask.text, "Focus on: the API notes\n\nMention the file names.");
  });
});

Deno.test("claude profile: a PreCompact exit 2 keeps the conversation as it was and tells the user", async () => {
  const seen: Seen = { summaryRequests: [], turnRequests: [] };
  await withInMemoryAgent({
    profile: "claude",
    files: compactHookFiles(2),
    model: contextModel(8192, seen),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "read data" }],
    });
    const answer = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/compact" }],
    });
    assertEquals(answer.stopReason, "end_turn");
    assertEquals(seen.summaryRequests.length, 0, "no summary was asked for");
    const notices = noticesOf(t.updates, sessionId);
    assert(notices.some((n) => n.includes("keep the history")), notices.join("\n"));
    await t.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    const request = seen.turnRequests.find((r) => {
      const last = r.conversation.at(-1);
      return last?.role === "user" && last.text === "go";
    })!;
    assert(request.conversation.length > 2, "the history is still there");
  });
});

Deno.test("on a server whose tokenizer takes fewer tokens than the estimate, a small context is tried, not refused up front", async () => {
  const seen: Seen = { summaryRequests: [], turnRequests: [] };
  // The estimate puts the fixed prompt and an answer above 2048; the server counts 60 % of it.
  await withInMemoryAgent({
    files: { "data.txt": "small\n" },
    model: contextModel(2048, seen, { serverShare: 0.6 }),
  }, async (t) => {
    const sessionId = await t.newSession();
    const answer = await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "read data" }],
    });
    assertEquals(answer.stopReason, "end_turn");
    assert(seen.turnRequests.length > 0, "the request was sent");
  });
});
