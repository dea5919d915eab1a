/**
 * `doctor`'s rules, as data in and a verdict out: the share of valid calls, the fixed prompt's
 * share of the context, tools a server drops or refuses, and notes that change nothing.
 */
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import {
  type FitnessFacts,
  fitnessFindings,
  type Verdict,
  verdictOf,
} from "../../src/doctor/fitness_verdict.ts";
import { toolsStatusOfUsage } from "../../src/doctor/model_fitness.ts";
import { llamaToolDefinitions } from "../../src/agent/tools/llama_tool_definitions.ts";

const CONTEXT = { size: 8192, source: "model" as const, answerTokenCap: 2048 };

function facts(overrides: Partial<FitnessFacts>): FitnessFacts {
  return {
    probe: { prompts: 5, valid: 5 },
    context: CONTEXT,
    fixedPromptTokens: 1000,
    ...overrides,
  };
}

function verdict(overrides: Partial<FitnessFacts>): Verdict {
  return verdictOf(fitnessFindings(facts(overrides)));
}

Deno.test("3 of 5 valid calls is ready, 2 of 5 limited, 0 of 5 unsuitable", () => {
  assertEquals(verdict({ probe: { prompts: 5, valid: 5 } }), "ready");
  assertEquals(verdict({ probe: { prompts: 5, valid: 3 } }), "ready");
  assertEquals(verdict({ probe: { prompts: 5, valid: 2 } }), "limited");
  assertEquals(verdict({ probe: { prompts: 5, valid: 0 } }), "unsuitable");
});

Deno.test("no valid call under the generic syntax says so, and what to try instead", () => {
  const [finding] = fitnessFindings(facts({
    probe: { prompts: 5, valid: 0 },
    chatFormat: { wrapper: "ChatML", chatTemplate: true, toolCalls: "generic" },
  }));
  assertEquals(finding?.level, "unsuitable");
  assertStringIncludes(finding?.reason ?? "", "0 of 5 prompts that each needed one tool");
  assertStringIncludes(finding?.reason ?? "", "node-llama-cpp's ChatML wrapper");
  assertStringIncludes(finding?.reason ?? "", "||call: name(params)");
  assertStringIncludes(finding?.advice ?? "", "whose chat template has tool calls");
  assertStringIncludes(finding?.advice ?? "", "BFCL V4");
});

Deno.test("a generic syntax that worked anyway is a note, and the model is ready", () => {
  const findings = fitnessFindings(facts({
    chatFormat: { wrapper: "Gemma", chatTemplate: true, toolCalls: "generic" },
  }));
  assertEquals(findings.map((finding) => finding.level), ["note"]);
  assertEquals(verdictOf(findings), "ready");
});

Deno.test("a fixed prompt and answer over the context is unsuitable with the --ctx-size that fits", () => {
  const findings = fitnessFindings(facts({
    context: { size: 2048, source: "model", answerTokenCap: 512 },
    fixedPromptTokens: 1600,
  }));
  assertEquals(findings[0]?.level, "unsuitable");
  assertStringIncludes(findings[0]?.reason ?? "", "do not fit in the context of 2,048 tokens");
  // The least context that holds the prompt and its own cap (which grows with the context).
  assertEquals(findings[0]?.advice, "pass --ctx-size 2133 or more");
});

Deno.test("a fixed prompt over half the context is limited; at half it is not", () => {
  const context = { size: 4096, source: "model" as const, answerTokenCap: 1024 };
  assertEquals(verdict({ context, fixedPromptTokens: 2049 }), "limited");
  assertEquals(verdict({ context, fixedPromptTokens: 2048 }), "ready");
  const [finding] = fitnessFindings(facts({ context, fixedPromptTokens: 2049 }));
  assertStringIncludes(finding?.reason ?? "", "takes 50 % of the context");
  assertEquals(finding?.advice, "pass --ctx-size 9216 or more");
});

Deno.test("on an endpoint, a larger context is the server's to give", () => {
  const [finding] = fitnessFindings(facts({
    context: { size: 2048, source: "server", answerTokenCap: 512 },
    fixedPromptTokens: 1600,
    endpoint: { model: "smol", tools: "honoured" },
  }));
  assertStringIncludes(finding?.advice ?? "", "llama-server -c");
});

Deno.test("tools dropped or refused are unsuitable with the server's fix; the model is not blamed", () => {
  const dropped = fitnessFindings(facts({
    probe: { prompts: 5, valid: 0 },
    endpoint: { model: "smol", server: "llama-cpp-python", tools: "dropped", said: "it said so" },
  }));
  assertEquals(dropped.map((finding) => finding.level), ["unsuitable", "note"]);
  assertEquals(
    dropped[0]?.reason,
    "The server drops the tools: the model never sees them: it said so",
  );
  assertStringIncludes(dropped[0]?.advice ?? "", "--chat_format chatml-function-calling");
  assertStringIncludes(dropped[1]?.reason ?? "", "could not judge the model");

  const refused = fitnessFindings(facts({
    probe: { prompts: 5, valid: 0, failure: "no tools here" },
    endpoint: { model: "qwen3:8b", server: "ollama", tools: "refused" },
  }));
  assertEquals(refused[0]?.reason, "The server refuses requests with tools");
  assertStringIncludes(refused[0]?.advice ?? "", 'ollama show qwen3:8b"');
  // Where the server is not known, every server's fix is named.
  const unknown = fitnessFindings(facts({ endpoint: { model: "m", tools: "dropped" } }));
  for (const flag of ["--jinja", "--chat_format", "--enable-auto-tool-choice", "Ollama"]) {
    assertStringIncludes(unknown[0]?.advice ?? "", flag);
  }
});

Deno.test("every probe prompt failing is unsuitable with the error, not a judgement of the model", () => {
  const findings = fitnessFindings(facts({
    probe: { prompts: 5, valid: 0, failure: "The model server failed (500)" },
  }));
  assertEquals(findings.length, 1);
  assertEquals(
    findings[0]?.reason,
    "No probe prompt could be asked: The model server failed (500)",
  );
});

Deno.test("an assumed context is a note that changes no verdict", () => {
  const findings = fitnessFindings(facts({
    context: { ...CONTEXT, source: "assumed", notice: "Assuming 8192 tokens" },
    endpoint: { model: "smol", tools: "honoured" },
  }));
  assertEquals(findings, [{ level: "note", reason: "Assuming 8192 tokens" }]);
  assertEquals(verdictOf(findings), "ready");
});

Deno.test("usage with and without the tools: dropped when they add next to nothing, refused when only they fail", () => {
  const tools = llamaToolDefinitions();
  assertEquals(toolsStatusOfUsage({ withTools: 412, withoutTools: 412 }, tools)?.tools, "dropped");
  assertEquals(toolsStatusOfUsage({ withTools: 420, withoutTools: 412 }, tools)?.tools, "dropped");
  assertEquals(
    toolsStatusOfUsage({ withTools: 1300, withoutTools: 412 }, tools)?.tools,
    "honoured",
  );
  assertEquals(
    toolsStatusOfUsage({ withTools: { error: "no tools" }, withoutTools: 0 }, tools),
    { tools: "refused", said: "no tools" },
  );
  // No usage, or a server that fails either way, says nothing.
  assertEquals(toolsStatusOfUsage({ withTools: 0, withoutTools: 0 }, tools), undefined);
  assertEquals(
    toolsStatusOfUsage({ withTools: { error: "down" }, withoutTools: { error: "down" } }, tools),
    undefined,
  );
});
