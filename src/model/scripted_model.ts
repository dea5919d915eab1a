/**
 * The scripted backend: a JSON file of model turns (text, thoughts, tool calls) played back in
 * order, one entry per `generate` call. It drives turn-loop tests and `hooks test` sessions
 * without inference; the llama backend is the one that proves real models work.
 *
 * File shape: `{"turns": [{"thought"?: "...", "text"?: "...", "toolCalls"?: [{"name", "input"}]}]}`.
 *
 * A call with a `responseSchema` (a hook verdict) plays the next turn's `text` as is: the script
 * author writes the JSON, and an invalid answer reaches the caller as it would from a real model.
 * Its thought is dropped, as under a llama grammar; tool calls there are a script error.
 */
import { z } from "zod";
import { AgentError, errorMessage } from "../error.ts";
import { readConfigFile } from "../config_file.ts";
import type {
  ConversationItem,
  GenerateRequest,
  GenerateResult,
  Model,
  ModelSession,
} from "./model.ts";

export const ScriptedTurn = z.strictObject({
  thought: z.string().optional(),
  text: z.string().optional(),
  toolCalls: z.array(z.strictObject({ name: z.string().min(1), input: z.unknown() })).optional(),
});
export type ScriptedTurn = z.infer<typeof ScriptedTurn>;

export const ModelScript = z.strictObject({ turns: z.array(ScriptedTurn) });
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
  /** Words the "context" already holds, so token counts behave like a cached prefix. */
  #cachedWords = 0;

  constructor(private readonly script: ModelScript) {}

  generate(request: GenerateRequest): Promise<GenerateResult> {
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
    const promptWords = countWords(request.conversation);
    const evaluated = Math.max(0, promptWords - this.#cachedWords);
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
    this.#cachedWords = promptWords + generated;
    return Promise.resolve({
      text,
      thought,
      toolCalls,
      stop: cancelled ? "cancelled" : toolCalls.length > 0 ? "tool_calls" : "end",
      tokens: { prompt: promptWords, evaluated, generated },
    });
  }

  dispose(): Promise<void> {
    return Promise.resolve();
  }
}

function countWords(conversation: readonly ConversationItem[]): number {
  let words = 0;
  const count = (text: string) => (words += text.match(CHUNK_PATTERN)?.length ?? 0);
  for (const item of conversation) {
    if (item.role !== "assistant") count(item.text);
    else {
      for (const segment of item.segments) {
        if (segment.type === "tool_call") count(JSON.stringify(segment.input) + segment.result);
        else count(segment.text);
      }
    }
  }
  return words;
}
