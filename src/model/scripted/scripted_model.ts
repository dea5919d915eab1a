/**
 * The scripted backend: a JSON file of model turns (text, thoughts, tool calls) played back in
 * order, one entry per `generate` call. It drives turn-loop tests and `hooks test` sessions
 * without inference; the llama backend is the one that proves real models work.
 *
 * File shape: `{"contextSize"?: N, "turns": [{"thought"?: "...", "text"?: "...", "toolCalls"?:
 * [{"name", "input"}]}]}`.
 *
 * Tokens are counted with the estimate (token_estimate.ts), as on an endpoint without usage. A
 * script that declares `contextSize` behaves like llama-server with that context: a request whose
 * prompt is over it fails with `CONTEXT_FULL` (with both numbers) and plays no turn, so the turn
 * is there for the request that follows a compaction. Without `contextSize` nothing is refused.
 *
 * A call with a `responseSchema` (a hook verdict) plays the next turn's `text` as is: the script
 * author writes the JSON, and an invalid answer reaches the caller as it would from a real model.
 * Its thought is dropped, as under a llama grammar; tool calls there are a script error.
 */
import { z } from "zod";
import { AgentError, errorMessage } from "../../error.ts";
import { readConfigFile } from "../../config_file.ts";
import { ContextFullError } from "../context_full_error.ts";
import type {
  ConversationItem,
  GenerateRequest,
  GenerateResult,
  Model,
  ModelSession,
  ToolDefinition,
} from "../model.ts";
import { estimatePromptTokens, estimateTextTokens } from "../token_estimate.ts";

export const ScriptedTurn = z.strictObject({
  thought: z.string().optional(),
  text: z.string().optional(),
  toolCalls: z.array(z.strictObject({ name: z.string().min(1), input: z.unknown() })).optional(),
});
export type ScriptedTurn = z.infer<typeof ScriptedTurn>;

export const ModelScript = z.strictObject({
  contextSize: z.number().int().min(1).optional().describe(
    "The context in tokens (counted with the estimate): a longer prompt fails with CONTEXT_FULL " +
      "and plays no turn, as llama-server refuses it; no limit when absent",
  ),
  turns: z.array(ScriptedTurn),
});
export type ModelScript = z.infer<typeof ModelScript>;

/** Pieces streamed per chunk: words with their following space, like a tokenizer would. */
const CHUNK_PATTERN = /\S+\s*|\s+/g;

export async function loadScriptedModel(path: string): Promise<Model> {
  let text: string;
  try {
    text = await readConfigFile(path);
  } catch (error) {
    throw new AgentError(
      "MODEL_UNAVAILABLE",
      `Cannot read model script "${path}": ${errorMessage(error)}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new AgentError(
      "MODEL_UNAVAILABLE",
      `Cannot parse model script "${path}": ${errorMessage(error)}`,
    );
  }
  const parsed = ModelScript.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const pointer = issue ? `/${issue.path.join("/")}` : "";
    throw new AgentError(
      "MODEL_UNAVAILABLE",
      `Invalid model script "${path}": ${issue?.message ?? "unknown problem"} at ${pointer}`,
    );
  }
  return scriptedModel(parsed.data, `scripted:${path}`);
}

/** A model that plays `script` back; every session starts at the first turn. */
export function scriptedModel(script: ModelScript, displayName = "scripted"): Model {
  return {
    displayName,
    openSession: () => Promise.resolve(new ScriptedSession(script)),
    dispose: () => Promise.resolve(),
  };
}

class ScriptedSession implements ModelSession {
  #next = 0;
  /** Tokens the "context" already holds, so token counts behave like a cached prefix. */
  #cachedTokens = 0;

  constructor(private readonly script: ModelScript) {}

  get contextSize(): number | undefined {
    return this.script.contextSize;
  }

  /** A script counts its prompt with the estimate: that is its own count. */
  readonly exactCounts = true;

  get contextSource(): "model" | undefined {
    return this.script.contextSize === undefined ? undefined : "model";
  }

  countPromptTokens(
    conversation: readonly ConversationItem[],
    tools: readonly ToolDefinition[],
  ): Promise<number> {
    return Promise.resolve(estimatePromptTokens(conversation, tools));
  }

  countTextTokens(text: string): number {
    return estimateTextTokens(text);
  }

  generate(request: GenerateRequest): Promise<GenerateResult> {
    const prompt = estimatePromptTokens(request.conversation, request.tools);
    const contextSize = this.script.contextSize;
    if (contextSize !== undefined && prompt > contextSize) {
      return Promise.reject(
        new ContextFullError(
          `The conversation (${prompt} tokens with the tool descriptions) does not fit in the ` +
            `scripted model's context of ${contextSize} tokens`,
          { promptTokens: prompt, contextSize },
        ),
      );
    }
    const turn = this.script.turns[this.#next];
    if (!turn) {
      return Promise.reject(
        new AgentError(
          "MODEL_SCRIPT_EXHAUSTED",
          `The model script has no turn ${this.#next + 1}: add one to "turns" for this model call`,
        ),
      );
    }
    if (request.responseSchema !== undefined && (turn.toolCalls ?? []).length > 0) {
      return Promise.reject(
        new AgentError(
          "MODEL_UNAVAILABLE",
          `Invalid model script: turn ${this.#next + 1} has "toolCalls", but this model call ` +
            'asks for a JSON answer: put the answer in "text"',
        ),
      );
    }
    this.#next++;
    const evaluated = Math.max(0, prompt - this.#cachedTokens);
    let generated = 0;
    const emit = (text: string, sink: (chunk: string) => void): string => {
      let sent = "";
      for (const chunk of text.match(CHUNK_PATTERN) ?? []) {
        if (request.signal.aborted) break;
        sink(chunk);
        sent += chunk;
        generated++;
      }
      return sent;
    };
    const thought = request.responseSchema === undefined
      ? emit(turn.thought ?? "", (c) => request.onThoughtChunk(c))
      : "";
    const text = emit(turn.text ?? "", (c) => request.onTextChunk(c));
    const cancelled = request.signal.aborted;
    const toolCalls = cancelled ? [] : (turn.toolCalls ?? []).map((c) => ({ ...c }));
    this.#cachedTokens = prompt + estimateTextTokens(thought + text);
    return Promise.resolve({
      text,
      thought,
      toolCalls,
      stop: cancelled ? "cancelled" : toolCalls.length > 0 ? "tool_calls" : "end",
      tokens: { prompt, evaluated, generated },
    });
  }

  dispose(): Promise<void> {
    return Promise.resolve();
  }
}
