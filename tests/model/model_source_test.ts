import { AgentError } from "../../src/error.ts";
import { DEFAULT_MODEL_URI } from "../../src/model/default_model.ts";
import { preloadLlama, resolveModelSource } from "../../src/model/llama/llama_model.ts";
import { modelCacheDir, parseModelSource } from "../../src/model/model_source.ts";
import { assert, assertEquals } from "../helpers/assert.ts";

// node-llama-cpp's signal handlers belong to the process, not to a test (see preloadLlama).
await preloadLlama();

Deno.test("--model values: paths, hf: files and tags, scripted files", () => {
  assertEquals(parseModelSource("models/m.gguf", "/work"), {
    kind: "path",
    path: "/work/models/m.gguf",
  });
  assertEquals(parseModelSource("/abs/m.gguf", "/work"), { kind: "path", path: "/abs/m.gguf" });
  assertEquals(parseModelSource("scripted:turns.json", "/work"), {
    kind: "scripted",
    path: "/work/turns.json",
  });
  assertEquals(parseModelSource("hf:Org/Repo-GGUF:file-q4.gguf", "/work"), {
    kind: "hf",
    value: "hf:Org/Repo-GGUF:file-q4.gguf",
    uri: "hf:Org/Repo-GGUF/file-q4.gguf",
  });
  assertEquals(parseModelSource("hf:Org/Repo:Q4_K_M", "/w"), {
    kind: "hf",
    value: "hf:Org/Repo:Q4_K_M",
    uri: "hf:Org/Repo:Q4_K_M",
  });
  assertEquals(parseModelSource("hf:Org/Repo", "/w"), {
    kind: "hf",
    value: "hf:Org/Repo",
    uri: "hf:Org/Repo",
  });
  assertEquals(parseModelSource(DEFAULT_MODEL_URI, "/w"), {
    kind: "hf",
    value: DEFAULT_MODEL_URI,
    uri: "hf:Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf",
  });
  for (const bad of ["hf:", "hf:repo", "hf:a/b:", "hf:a/b/c"]) {
    try {
      parseModelSource(bad, "/w");
      throw new Error(`accepted ${bad}`);
    } catch (error) {
      assert(error instanceof AgentError && error.code === "USAGE", String(error));
      assert(error.message.startsWith(`Invalid model "${bad}"`), error.message);
    }
  }
});

Deno.test("the model cache is under XDG_CACHE_HOME, else HOME", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  assertEquals(modelCacheDir(env({ XDG_CACHE_HOME: "/x", HOME: "/h" })), "/x/llama-agent/models");
  assertEquals(modelCacheDir(env({ HOME: "/h" })), "/h/.cache/llama-agent/models");
  assertEquals(modelCacheDir(env({})), undefined);
});

Deno.test("an hf: model that cannot be fetched says to pass --model PATH", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await resolveModelSource(
      { value: "hf:llama-agent/none:none.gguf", uri: "hf:llama-agent/none/none.gguf" },
      { cacheDir: `${dir}/models`, signal: AbortSignal.abort() },
    );
    throw new Error("resolved");
  } catch (error) {
    assert(error instanceof AgentError, String(error));
    assertEquals(error.code, "MODEL_UNAVAILABLE");
    assert(
      error.message.startsWith('Cannot get model "hf:llama-agent/none:none.gguf": '),
      error.message,
    );
    assert(error.message.includes("pass --model PATH"), error.message);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a cached hf: model resolves to its file without the network", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // node-llama-cpp's name for a cached hf:OWNER/REPO/FILE (the repo name is not in the file's).
    const cached = `${dir}/hf_llama-agent_tiny.gguf`;
    await Deno.writeTextFile(cached, "GGUF");
    const path = await resolveModelSource(
      { value: "hf:llama-agent/tiny-GGUF:tiny.gguf", uri: "hf:llama-agent/tiny-GGUF/tiny.gguf" },
      { cacheDir: dir, stallTimeoutMs: 5000 },
    );
    assertEquals(path, cached);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
