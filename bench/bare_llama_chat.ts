/**
 * The baseline of the agent's throughput: node-llama-cpp driven directly in the bench process,
 * doing what the agent's llama backend does for one turn and nothing else: a fresh context (the
 * agent opens one per session), one `LlamaChat`, `generateResponse` with the same functions, the
 * same token cap (the context size) and the same token meter. Imported lazily, as the agent does.
 */
import type { Llama, LlamaModel } from "node-llama-cpp";
import { llamaToolDefinitions } from "../src/agent/tools/llama_tool_definitions.ts";
import { toLlamaFunctions } from "../src/model/llama/llama_functions.ts";
import type { CutTurn } from "./cut_turn.ts";

export interface BareLlamaChatOptions {
  readonly modelPath: string;
  readonly contextSize: number;
  readonly threads: number;
}

export class BareLlamaChat {
  private constructor(
    private readonly llama: Llama,
    private readonly model: LlamaModel,
    private readonly options: BareLlamaChatOptions,
  ) {}

  static async open(options: BareLlamaChatOptions): Promise<BareLlamaChat> {
    const { getLlama, LlamaLogLevel } = await import("node-llama-cpp");
    const llama = await getLlama({
      gpu: false,
      build: "never",
      skipDownload: true,
      progressLogs: false,
      logLevel: LlamaLogLevel.warn,
      logger: (level, message) => console.error(`llama.cpp ${level}: ${message.trimEnd()}`),
    });
    try {
      const model = await llama.loadModel({ modelPath: options.modelPath });
      return new BareLlamaChat(llama, model, options);
    } catch (error) {
      await llama.dispose();
      throw error;
    }
  }

  /**
   * Generates a reply to `text` (with the agent's tools offered) in a fresh context, and aborts
   * it `cutAfterMs` after its first text; `cutAfterMs` 0 aborts at the first text. `system` is
   * the agent's own system prompt, so both sides evaluate the same prompt.
   */
  async cutTurn(text: string, cutAfterMs: number, system: string): Promise<CutTurn> {
    const { LlamaChat } = await import("node-llama-cpp");
    const { contextSize, threads } = this.options;
    const functions = toLlamaFunctions(llamaToolDefinitions());
    const history = [
      { type: "system" as const, text: system },
      { type: "user" as const, text },
      { type: "model" as const, response: [] },
    ];
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let firstAt: number | undefined;

    const startedAt = performance.now();
    const context = await this.model.createContext({ contextSize, sequences: 1, threads });
    const chat = new LlamaChat({ contextSequence: context.getSequence() });
    try {
      const prompt = chat.chatWrapper
        .generateContextState({ chatHistory: history, availableFunctions: functions })
        .contextText.tokenize(this.model.tokenizer).length;
      const meterBefore = chat.sequence.tokenMeter.getState();
      await chat.generateResponse(history, {
        functions,
        signal: controller.signal,
        stopOnAbortSignal: true,
        maxTokens: contextSize,
        onResponseChunk: (chunk) => {
          if (firstAt !== undefined || chunk.text === "") return;
          firstAt = performance.now();
          timer = setTimeout(() => controller.abort(), cutAfterMs);
        },
      });
      const endedAt = performance.now();
      // Counted as the agent counts them (src/model/llama/llama_model.ts).
      const used = chat.sequence.tokenMeter.diff(meterBefore);
      const generated = used.usedOutputTokens;
      const evaluated = used.usedInputTokens + (generated > 0 ? 1 : 0);
      return {
        wallMs: endedAt - startedAt,
        decodeMs: endedAt - (firstAt ?? endedAt),
        tokens: { prompt, evaluated, generated },
      };
    } finally {
      clearTimeout(timer);
      chat.dispose();
      await context.dispose();
    }
  }

  async dispose(): Promise<void> {
    await this.model.dispose();
    await this.llama.dispose();
  }
}
