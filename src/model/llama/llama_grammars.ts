/**
 * The JSON-schema grammars of a model's requests with a `responseSchema` (a hook's verdict): one
 * per schema, built once per model, since building one parses and compiles a GBNF grammar. The
 * schema goes through the same subset as tool params (llama_functions.ts).
 */
import type { GbnfJsonSchema, Llama, LlamaGrammar } from "node-llama-cpp";
import { AgentError, errorMessage } from "../../error.ts";
import { toParamsSchema } from "./llama_functions.ts";

/** JSON-schema grammars by schema text. */
export class GrammarCache {
  readonly #grammars = new Map<string, Promise<LlamaGrammar>>();

  constructor(private readonly llama: Llama) {}

  get(schema: Readonly<Record<string, unknown>>): Promise<LlamaGrammar> {
    const key = JSON.stringify(schema);
    let grammar = this.#grammars.get(key);
    if (grammar === undefined) {
      grammar = this.#create(schema);
      this.#grammars.set(key, grammar);
      // A schema that failed stays uncached: the next request gets the error again, not a stale one.
      grammar.catch(() => this.#grammars.delete(key));
    }
    return grammar;
  }

  async #create(schema: Readonly<Record<string, unknown>>): Promise<LlamaGrammar> {
    try {
      // The subset is node-llama-cpp's schema type, written out; the compiler checks the fit.
      const subset: GbnfJsonSchema = toParamsSchema(schema);
      return await this.llama.createGrammarForJsonSchema<GbnfJsonSchema>(subset);
    } catch (error) {
      throw new AgentError(
        "INTERNAL",
        `Cannot build a grammar for the response schema: ${errorMessage(error)}`,
        { cause: error },
      );
    }
  }
}
