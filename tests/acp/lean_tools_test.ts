/**
 * A small context gets the lean tools: a model whose context holds at most 4096 tokens is offered
 * them in every request of a turn, a larger or unknown one the full tools; and the lean tools
 * make the fixed prompt smaller by what bench/prompt_tokens.ts measures, counted by a real
 * tokenizer (SmolLM2's where installed, a generated model's always).
 */
import { createToolKit } from "../../src/agent/tools/tool_kits.ts";
import { systemPromptItem } from "../../src/acp/turn/system_prompt.ts";
import { openLlamaRuntime, preloadLlama } from "../../src/model/llama/llama_model.ts";
import type { GenerateRequest, ModelSession } from "../../src/model/model.ts";
import { compatProfile, type CompatProfileId } from "../../src/profile/compat_profile.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { writeReplyModel } from "../helpers/test_models.ts";
import { testOnParts } from "../helpers/test_parts.ts";
import { callTool, reply, steppedModel } from "./fake_models.ts";
import { withInMemoryAgent } from "./in_memory_agent.ts";

await preloadLlama();

const PROFILES: readonly CompatProfileId[] = ["llama", "claude"];

/** The tool names and descriptions each request of one turn offered, for a context size. */
async function offered(
  profile: CompatProfileId,
  contextSize: number | undefined,
): Promise<GenerateRequest["tools"][]> {
  const seen: GenerateRequest["tools"][] = [];
  const record = (step: (request: GenerateRequest) => ReturnType<ReturnType<typeof reply>>) =>
  (
    request: GenerateRequest,
  ) => {
    seen.push(request.tools);
    return step(request);
  };
  const glob = profile === "llama" ? "fs_glob" : "Glob";
  const model = steppedModel(
    [record(callTool(glob, { pattern: "*.md" })), record(reply("Done."))],
    contextSize,
  );
  await withInMemoryAgent({ model, profile }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "list the notes" }],
    });
  });
  return seen;
}

Deno.test("a context of at most 4096 tokens is offered the lean tools, a larger or unknown one the full", async () => {
  for (const profile of PROFILES) {
    const kit = createToolKit(compatProfile(profile));
    const cases: [number | undefined, "full" | "lean"][] = [
      [2048, "lean"],
      [4096, "lean"],
      [4097, "full"],
      [8192, "full"],
      [undefined, "full"],
    ];
    for (const [contextSize, form] of cases) {
      const requests = await offered(profile, contextSize);
      assertEquals(requests.length, 2, "a tool call, then the answer");
      for (const tools of requests) {
        assertEquals(tools, kit.definitions(form), `${profile} at ${contextSize}`);
      }
    }
  }
});

/** What the lean tools save of the fixed prompt, as `session` counts it. */
async function saving(session: ModelSession, profile: CompatProfileId): Promise<number> {
  const kit = createToolKit(compatProfile(profile));
  const conversation = [
    systemPromptItem({ cwd: "/home/you/projects/app", additionalDirectories: [] }, kit.profile),
    { role: "user" as const, text: "hi" },
  ];
  const full = await session.countPromptTokens!(conversation, kit.definitions("full"));
  const lean = await session.countPromptTokens!(conversation, kit.definitions("lean"));
  console.error(
    `${profile}: ${full} -> ${lean} tokens (${((1 - lean / full) * 100).toFixed(0)} %)`,
  );
  return 1 - lean / full;
}

async function savings(modelPath: string): Promise<Record<CompatProfileId, number>> {
  const runtime = await openLlamaRuntime({ gpu: "off", log: () => {} });
  try {
    const model = await runtime.loadModel({ modelPath, contextSize: 4096, threads: 1 });
    try {
      const session = await model.openSession();
      try {
        return { llama: await saving(session, "llama"), claude: await saving(session, "claude") };
      } finally {
        await session.dispose();
      }
    } finally {
      await model.dispose();
    }
  } finally {
    await runtime.dispose();
  }
}

Deno.test("the lean tools make a generated model's fixed prompt a third smaller (llama) and a quarter (claude)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "lean_tools_test_" });
  try {
    const saved = await savings(await writeReplyModel(dir));
    assert(saved.llama >= 0.33, `llama saves ${saved.llama}`);
    assert(saved.claude >= 0.25, `claude saves ${saved.claude}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

testOnParts(
  "on SmolLM2 the lean tools make the fixed prompt a third smaller (llama) and a quarter (claude)",
  async (parts) => {
    const saved = await savings(parts.instructModel);
    // Measured: 902 -> 556 tokens (38 %) and 995 -> 718 (28 %).
    assert(saved.llama >= 0.33, `llama saves ${saved.llama}`);
    assert(saved.claude >= 0.25, `claude saves ${saved.claude}`);
  },
);
