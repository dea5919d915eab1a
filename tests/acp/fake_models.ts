/**
 * Hand-written models for protocol tests: each generate call is a function of the request, so a
 * test can fail, stall or inspect what the model was given.
 */
import type {
  GenerateRequest,
  GenerateResult,
  Model,
  ModelSession,
} from "../../src/model/model.ts";

export type Step = (request: GenerateRequest) => Promise<GenerateResult> | GenerateResult;

/** A model whose n-th generate call (per session) runs `steps[n]`. */
export function steppedModel(steps: readonly Step[], contextSize?: number): () => Promise<Model> {
  return () =>
    Promise.resolve({
      displayName: "stepped",
      openSession(): Promise<ModelSession> {
        let call = 0;
        return Promise.resolve({
          contextSize,
          generate(request) {
            const step = steps[call++];
            if (!step) throw new Error(`stepped model: no step ${call}`);
            return Promise.resolve(step(request));
          },
          dispose: () => Promise.resolve(),
        });
      },
      dispose: () => Promise.resolve(),
    });
}

const TOKENS = { prompt: 1, evaluated: 1, generated: 1 };

export function callTool(name: string, input: unknown): Step {
  return () => ({
    text: "",
    thought: "",
    toolCalls: [{ name, input }],
    stop: "tool_calls",
    tokens: TOKENS,
  });
}

export function reply(text: string): Step {
  return (request) => {
    request.onTextChunk(text);
    return { text, thought: "", toolCalls: [], stop: "end", tokens: TOKENS };
  };
}
