/**
 * The model used when `--model` is not given: Qwen2.5 1.5B Instruct, Q4_K_M (~1.1 GB), from
 * Qwen's own GGUF repository. Small enough for a laptop CPU and trained for tool calling
 * (node-llama-cpp recognises its chat template and drives it with its Qwen chat wrapper).
 * Fetched once into the user's cache; offline, pass `--model PATH`.
 */
export const DEFAULT_MODEL_URI =
  "hf:Qwen/Qwen2.5-1.5B-Instruct-GGUF:qwen2.5-1.5b-instruct-q4_k_m.gguf";
