/**
 * The "model" config option: the models the agent can use, picked per session for its next
 * turn, kept in the transcript. Scripted models here; the last test runs two real GGUF models.
 */
import * as acp from "@agentclientprotocol/sdk";
import type {
  ContentBlock,
  SessionConfigOption,
  SessionNotification,
} from "@agentclientprotocol/sdk";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { createAgentApp } from "../../src/acp/agent_app.ts";
import type { AgentConfig } from "../../src/acp/agent_config.ts";
import {
  cachedGgufLister,
  createModelCatalog,
  ggufChoice,
  ggufPathOf,
  type ModelCatalog,
  type ModelChoice,
  type ModelLister,
} from "../../src/acp/model_catalog.ts";
import { createModelProvider, type ModelLoader } from "../../src/acp/model_provider.ts";
import { withoutParagraphBreaks } from "../../src/acp/session/message_paragraphs.ts";
import { createHandlerRunner } from "../../src/hooks/handlers/handler_dispatch.ts";
import { preloadLlama } from "../../src/model/llama/llama_model.ts";
import type { ConversationItem, Model } from "../../src/model/model.ts";
import { openModel } from "../../src/model/model_source.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";
import { transcriptPathFor } from "../../src/agent/transcript/transcript_path.ts";
import { writeReplyModel } from "../helpers/test_models.ts";

// node-llama-cpp's signal handlers belong to the process, not to a test (see preloadLlama).
await preloadLlama();

const A: ModelChoice = { id: "a", name: "Model A" };
const B: ModelChoice = { id: "b", name: "Model B", description: "the other one" };
const prompt = (text: string): ContentBlock[] => [{ type: "text", text }];

/**
 * What each model was given, per generate call (the conversation less the system prompt), and
 * `freed`: the names of the models disposed, in order.
 */
type Seen = Record<string, ConversationItem[][]> & { freed?: string[] };

/** A model that answers its own name to every prompt, after `gate` (if any) lets it. */
function namedModel(name: string, seen: Seen, gate?: () => Promise<void>): ModelLoader {
  return () =>
    Promise.resolve(
      {
        displayName: name,
        openSession: () =>
          Promise.resolve({
            async generate(request) {
              (seen[name] ??= []).push(request.conversation.filter((i) => i.role !== "system"));
              await gate?.();
              request.onTextChunk(name);
              const tokens = { prompt: 1, evaluated: 1, generated: 1 };
              return { text: name, thought: "", toolCalls: [], stop: "end", tokens };
            },
            dispose: () => Promise.resolve(),
          }),
        dispose: () => ((seen.freed ??= []).push(name), Promise.resolve()),
      } satisfies Model,
    );
}

interface Picker {
  readonly agent: acp.ClientContext;
  readonly cwd: string;
  readonly env: (name: string) => string | undefined;
  readonly logs: string[];
  newSession(): Promise<{ sessionId: string; configOptions: SessionConfigOption[] }>;
  /** The agent text one session showed, paragraph breaks taken out. */
  text(sessionId: string): string;
  setModel(sessionId: string, value: string): Promise<SessionConfigOption[]>;
}

/**
 * The agent with a model catalog, wired to an SDK client in memory. `catalog` gets the default
 * provider (the agent's `models`) and the log.
 */
async function withPicker(
  defaultLoader: ModelLoader,
  catalog: (defaultProvider: AgentConfig["models"], log: (line: string) => void) => ModelCatalog,
  fn: (picker: Picker) => Promise<void>,
): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "model_picker_" }));
  const cwd = `${root}/project`;
  const home = `${root}/home`;
  await Deno.mkdir(cwd);
  await Deno.mkdir(home);
  const env = (name: string) => (name === "HOME" ? home : undefined);
  const logs: string[] = [];
  const log = (line: string) => logs.push(line);
  const models = createModelProvider(defaultLoader);
  const modelCatalog = catalog(models, log);
  const config: AgentConfig = {
    models,
    modelCatalog,
    launchCwd: cwd,
    home,
    env,
    defaultMode: "auto-approve-reads",
    rules: [],
    maxToolRounds: 4,
    profile: compatProfile(),
    hookRunner: () => createHandlerRunner({ killGraceMs: 200 }),
    version: "0.0.0-test",
    log,
  };
  const handle = createAgentApp(config);
  const updates: SessionNotification[] = [];
  const connection = acp.client({ name: "test-client" })
    .onNotification("session/update", ({ params }) => void updates.push(params))
    .connect(handle.app);
  const agent = connection.agent;
  try {
    await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    await fn({
      agent,
      cwd,
      env,
      logs,
      async newSession() {
        const created = await agent.request("session/new", { cwd, mcpServers: [] });
        return { sessionId: created.sessionId, configOptions: created.configOptions ?? [] };
      },
      text: (id) =>
        withoutParagraphBreaks(updates.filter((u) => u.sessionId === id)).map(({ update }) =>
          update.sessionUpdate === "agent_message_chunk" && update.content.type === "text"
            ? update.content.text
            : ""
        ).join(""),
      async setModel(sessionId, value) {
        const set = await agent.request("session/set_config_option", {
          sessionId,
          configId: "model",
          value,
        });
        return set.configOptions;
      },
    });
  } finally {
    await handle.shutdown();
    connection.close();
    await connection.closed.catch(() => {});
    await modelCatalog.dispose();
    await models.dispose();
    await Deno.remove(root, { recursive: true });
  }
}

/** Model A is the default; the listers offer what `listers` give; "b" opens model B. */
function scriptedCatalog(seen: Seen, listers: readonly ModelLister[], gateA?: () => Promise<void>) {
  return {
    defaultLoader: namedModel("A", seen, gateA),
    catalog: (defaultProvider: AgentConfig["models"], log: (line: string) => void) =>
      createModelCatalog({
        defaultChoice: A,
        defaultProvider,
        listers,
        loaderFor: (id) => (id === "b" ? namedModel("B", seen) : undefined),
        log,
      }),
  };
}

function modelOption(options: readonly SessionConfigOption[]) {
  const option = options.find((o) => o.id === "model");
  assert(option?.type === "select", JSON.stringify(options));
  return option;
}

const listingB: ModelLister = () => Promise.resolve([B]);

Deno.test("session/new offers a model option: the startup model first and current, then the listed ones", async () => {
  const { defaultLoader, catalog } = scriptedCatalog({}, [listingB]);
  await withPicker(defaultLoader, catalog, async (t) => {
    const { configOptions } = await t.newSession();
    const option = modelOption(configOptions);
    assertEquals(option.category, "model");
    assertEquals(option.name, "Model");
    assertEquals(option.currentValue, "a");
    assertEquals(option.options, [
      { value: "a", name: "Model A" },
      { value: "b", name: "Model B", description: "the other one" },
    ]);
    // This client advertises no boolean options: "stop_hooks_continue" is not among them.
    assertEquals(configOptions.map((o) => o.id), ["mode", "model"]);
  });
});

Deno.test("picking model B makes the next prompt answer B, and B sees the conversation so far", async () => {
  const seen: Seen = {};
  const { defaultLoader, catalog } = scriptedCatalog(seen, [listingB]);
  await withPicker(defaultLoader, catalog, async (t) => {
    const { sessionId } = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: prompt("first") });
    const options = await t.setModel(sessionId, "b");
    assertEquals(modelOption(options).currentValue, "b");
    await t.agent.request("session/prompt", { sessionId, prompt: prompt("second") });
    assertEquals(t.text(sessionId), "AB");
    assertEquals(seen.B, [[
      { role: "user", text: "first" },
      { role: "assistant", segments: [{ type: "text", text: "A" }] },
      { role: "user", text: "second" },
    ]]);
  });
});

Deno.test("a model picked while a prompt runs answers the next prompt; the running one finishes on its model", async () => {
  const seen: Seen = {};
  const started = Promise.withResolvers<void>();
  const release = Promise.withResolvers<void>();
  const gate = () => (started.resolve(), release.promise);
  const { defaultLoader, catalog } = scriptedCatalog(seen, [listingB], gate);
  await withPicker(defaultLoader, catalog, async (t) => {
    const { sessionId } = await t.newSession();
    const running = t.agent.request("session/prompt", { sessionId, prompt: prompt("first") });
    await started.promise;
    await t.setModel(sessionId, "b");
    release.resolve();
    assertEquals((await running).stopReason, "end_turn");
    assertEquals(t.text(sessionId), "A");
    await t.agent.request("session/prompt", { sessionId, prompt: prompt("second") });
    assertEquals(t.text(sessionId), "AB");
  });
});

Deno.test("the picked model comes back with session/load and resume, and is in the transcript's settings", async () => {
  const seen: Seen = {};
  const { defaultLoader, catalog } = scriptedCatalog(seen, [listingB]);
  await withPicker(defaultLoader, catalog, async (t) => {
    const { sessionId } = await t.newSession();
    await t.setModel(sessionId, "b");
    await t.agent.request("session/close", { sessionId });
    const settings = (await Deno.readTextFile(transcriptPathFor(sessionId, t.env))).trim()
      .split("\n").map((line) => JSON.parse(line)).findLast((r) => r.type === "settings");
    assertEquals(settings?.model, "b");

    const loaded = await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] });
    assertEquals(modelOption(loaded.configOptions ?? []).currentValue, "b");
    await t.agent.request("session/prompt", { sessionId, prompt: prompt("after load") });
    assertEquals(t.text(sessionId), "B");
    await t.agent.request("session/close", { sessionId });

    const resumed = await t.agent.request("session/resume", { sessionId, cwd: t.cwd });
    assertEquals(modelOption(resumed.configOptions ?? []).currentValue, "b");
  });
});

Deno.test("a picked model is freed once no session uses it; the default stays loaded", async () => {
  const seen: Seen = {};
  const { defaultLoader, catalog } = scriptedCatalog(seen, [listingB]);
  await withPicker(defaultLoader, catalog, async (t) => {
    const one = (await t.newSession()).sessionId;
    const two = (await t.newSession()).sessionId;
    for (const sessionId of [one, two]) {
      await t.setModel(sessionId, "b");
      await t.agent.request("session/prompt", { sessionId, prompt: prompt("on B") });
    }
    await t.setModel(one, "a");
    await t.agent.request("session/prompt", { sessionId: one, prompt: prompt("on A") });
    assertEquals(seen.freed, undefined);
    await t.setModel(two, "a");
    await t.agent.request("session/prompt", { sessionId: two, prompt: prompt("on A") });
    assertEquals(seen.freed, ["B"]);
    assertEquals([t.text(one), t.text(two)], ["BA", "BA"]);
  });
});

Deno.test("a model the catalog does not offer is an invalid params error that lists the models", async () => {
  const { defaultLoader, catalog } = scriptedCatalog({}, [listingB]);
  await withPicker(defaultLoader, catalog, async (t) => {
    const { sessionId } = await t.newSession();
    const error = await t.setModel(sessionId, "gguf:/nowhere.gguf").then(() => undefined, (e) => e);
    assertEquals(error?.code, -32602);
    assertStringIncludes(
      error.message,
      'unknown model "gguf:/nowhere.gguf"; the models are "a", "b"',
    );
    const wrongType = await t.agent.request("session/set_config_option", {
      sessionId,
      configId: "model",
      type: "boolean",
      value: true,
    }).then(() => undefined, (e) => e);
    assertEquals(wrongType?.code, -32602);
  });
});

Deno.test("a session saved on a model no longer offered loads on the default and the log says so", async () => {
  let offered: readonly ModelChoice[] = [B];
  const { defaultLoader, catalog } = scriptedCatalog({}, [() => Promise.resolve(offered)]);
  await withPicker(defaultLoader, catalog, async (t) => {
    const { sessionId } = await t.newSession();
    await t.setModel(sessionId, "b");
    await t.agent.request("session/close", { sessionId });
    offered = [];
    const loaded = await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] });
    assertEquals(modelOption(loaded.configOptions ?? []).currentValue, "a");
    assertEquals(
      t.logs.filter((line) => line.includes("does not offer")),
      [`Session "${sessionId}" was on model "b", which this agent does not offer now: it goes on with the default model "a"`],
    );
    await t.agent.request("session/prompt", { sessionId, prompt: prompt("after load") });
    assertEquals(t.text(sessionId), "A");
  });
});

Deno.test("session/new succeeds with the default alone when every lister fails", async () => {
  const failing: ModelLister = () => Promise.reject(new Error("connection refused"));
  const { defaultLoader, catalog } = scriptedCatalog({}, [failing]);
  await withPicker(defaultLoader, catalog, async (t) => {
    const { configOptions } = await t.newSession();
    assertEquals(modelOption(configOptions).options, [{ value: "a", name: "Model A" }]);
    assertEquals(t.logs.filter((line) => line.includes("connection refused")), [
      'Cannot list models for the "model" option: connection refused',
    ]);
  });
});

Deno.test("two GGUF models in the model cache: picking the other one switches the real model", async () => {
  const cache = await Deno.realPath(await Deno.makeTempDir({ prefix: "model_cache_" }));
  try {
    const first = await writeReplyModel(cache, "I am the first model.", "first.gguf");
    const second = await writeReplyModel(cache, "I am the second model.", "second.gguf");
    const ggufLoader = (path: string): ModelLoader => (signal) =>
      openModel({ kind: "path", path }, { gpu: "off", signal });
    await withPicker(ggufLoader(first), (defaultProvider, log) =>
      createModelCatalog({
        defaultChoice: { ...ggufChoice(first), description: "The startup model" },
        defaultProvider,
        listers: [cachedGgufLister(cache)],
        loaderFor: (id) => {
          const path = ggufPathOf(id);
          return path === undefined ? undefined : ggufLoader(path);
        },
        log,
      }), async (t) => {
      const { sessionId, configOptions } = await t.newSession();
      assertEquals(modelOption(configOptions).options.map((o) => "value" in o && o.value), [
        `gguf:${first}`,
        `gguf:${second}`,
      ]);
      await t.agent.request("session/prompt", { sessionId, prompt: prompt("who are you?") });
      assertEquals(t.text(sessionId), "I am the first model.");
      await t.setModel(sessionId, `gguf:${second}`);
      await t.agent.request("session/prompt", { sessionId, prompt: prompt("and now?") });
      assertEquals(t.text(sessionId), "I am the first model.I am the second model.");
    });
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
});

Deno.test("a session saved on a model whose server is down for a moment keeps it: the listing failed, not the model", async () => {
  let down = false;
  const lister: ModelLister = () =>
    down ? Promise.reject(new Error("connection refused")) : Promise.resolve([B]);
  const { defaultLoader, catalog } = scriptedCatalog({}, [lister]);
  await withPicker(defaultLoader, catalog, async (t) => {
    const { sessionId } = await t.newSession();
    await t.setModel(sessionId, "b");
    await t.agent.request("session/close", { sessionId });
    down = true;
    const loaded = await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] });
    assertEquals(modelOption(loaded.configOptions ?? []).currentValue, "b");
    await t.agent.request("session/prompt", { sessionId, prompt: prompt("after load") });
    assertEquals(t.text(sessionId), "B");
    assertEquals(t.logs.filter((line) => line.includes("does not offer")), []);
  });
});

Deno.test("switching away from a model still loading does not wait for its load", async () => {
  const seen: Seen = {};
  let loadB = () => {};
  const loadingB = new Promise<void>((resolve) => (loadB = resolve));
  let startB = () => {};
  const startedB = new Promise<void>((resolve) => (startB = resolve));
  const slowB: ModelLoader = async (signal, report) => {
    startB();
    await loadingB;
    return await namedModel("B", seen)(signal, report);
  };
  await withPicker(namedModel("A", seen), (defaultProvider, log) =>
    createModelCatalog({
      defaultChoice: A,
      defaultProvider,
      listers: [listingB],
      loaderFor: (id) => (id === "b" ? slowB : undefined),
      log,
    }), async (t) => {
    const { sessionId } = await t.newSession();
    await t.setModel(sessionId, "b");
    const onB = t.agent.request("session/prompt", { sessionId, prompt: prompt("on b") });
    await startedB;
    await t.agent.notify("session/cancel", { sessionId });
    await onB;
    await t.setModel(sessionId, "a");
    // B never finished loading; A answers all the same.
    await t.agent.request("session/prompt", { sessionId, prompt: prompt("on a") });
    assertEquals(t.text(sessionId), "A");
    loadB();
  });
});
