/**
 * Memory the agent keeps per prompt with its model on a server, next to the same replies from a
 * model in the process: the agent in memory (the ACP app and an SDK client that keeps nothing),
 * a loopback server in a child process (so its memory is not counted) that streams 40 chunks a
 * reply, and the heap (after a full GC) and resident set read before and after N prompts.
 *
 *   deno run --allow-all --v8-flags=--expose-gc bench/endpoint_memory.ts [prompts] [one|fresh]
 *
 * `one` sends every prompt in one session, whose conversation (and so each request) grows;
 * `fresh` closes the session and opens another before each prompt.
 */
import * as acp from "@agentclientprotocol/sdk";
import { createAgentApp } from "../src/acp/agent_app.ts";
import { createModelProvider } from "../src/acp/model_provider.ts";
import { createHandlerRunner } from "../src/hooks/handlers/handler_dispatch.ts";
import { compatProfile } from "../src/profile/compat_profile.ts";
import type { Model } from "../src/model/model.ts";
import { openEndpointModel } from "../src/model/openai/openai_model.ts";

const WORDS = Array.from({ length: 40 }, (_, i) => `word${i} `);

const REPLY = [
  { choices: [{ index: 0, delta: { role: "assistant", content: "" } }] },
  ...WORDS.map((word) => ({ choices: [{ index: 0, delta: { content: word } }] })),
  { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
  { choices: [], usage: { prompt_tokens: 50, completion_tokens: 40, total_tokens: 90 } },
].map((chunk) => `data: ${JSON.stringify({ object: "chat.completion.chunk", ...chunk })}\n\n`)
  .join("") + "data: [DONE]\n\n";

/** The server side (the child): lists one model and answers every chat with `REPLY`. */
function serve(): void {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      if (new URL(request.url).pathname === "/v1/models") {
        return Response.json({ object: "list", data: [{ id: "m" }] });
      }
      await request.arrayBuffer();
      return new Response(REPLY, { headers: { "content-type": "text/event-stream" } });
    },
  );
  console.log((server.addr as Deno.NetAddr).port);
}

/** The same replies from a model in the process. */
const inProcess: Model = {
  displayName: "in-process",
  openSession: () =>
    Promise.resolve({
      contextSize: 8192,
      generate(request) {
        for (const word of WORDS) request.onTextChunk(word);
        return Promise.resolve({
          text: WORDS.join(""),
          thought: "",
          toolCalls: [],
          stop: "end",
          tokens: { prompt: 50, evaluated: 50, generated: 40 },
        });
      },
      dispose: () => Promise.resolve(),
    }),
  dispose: () => Promise.resolve(),
};

interface Figures {
  readonly heapKib: number;
  readonly rssKib: number;
}

function kib(bytes: number): string {
  return (bytes / 1024).toFixed(0);
}

function memory(): { heapUsed: number; rss: number } {
  (globalThis as unknown as { gc(): void }).gc();
  const { heapUsed, rss } = Deno.memoryUsage();
  return { heapUsed, rss };
}

async function measure(
  open: () => Promise<Model>,
  prompts: number,
  fresh: boolean,
): Promise<Figures> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "endpoint_memory_" }));
  const cwd = `${root}/project`;
  await Deno.mkdir(cwd);
  await Deno.mkdir(`${root}/home`);
  try {
    const handle = createAgentApp({
      models: createModelProvider(open),
      launchCwd: cwd,
      home: `${root}/home`,
      env: (name) => (name === "HOME" ? `${root}/home` : undefined),
      defaultMode: "auto-approve-reads",
      rules: [],
      maxToolRounds: 8,
      profile: compatProfile("llama"),
      hookRunner: () => createHandlerRunner({ killGraceMs: 200 }),
      version: "0",
      log: () => {},
    });
    const client = acp.client({ name: "bench" }).onNotification("session/update", () => {});
    const agent = client.connect(handle.app).agent;
    await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    let { sessionId } = await agent.request("session/new", { cwd, mcpServers: [] });
    const prompt = async (n: number) => {
      if (fresh) {
        await agent.request("session/close", { sessionId });
        ({ sessionId } = await agent.request("session/new", { cwd, mcpServers: [] }));
      }
      await agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: `prompt ${n}` }],
      });
    };
    for (let n = 0; n < 20; n++) await prompt(n);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = memory();
    for (let n = 1; n <= prompts; n++) {
      await prompt(n);
      if (n % 1000 === 0 && n < prompts) {
        const now = memory();
        console.log(
          `  after ${n}: heap +${kib(now.heapUsed - before.heapUsed)} KiB, ` +
            `resident +${kib(now.rss - before.rss)} KiB`,
        );
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = memory();
    await agent.request("session/close", { sessionId });
    return {
      heapKib: (after.heapUsed - before.heapUsed) / prompts / 1024,
      rssKib: (after.rss - before.rss) / prompts / 1024,
    };
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** Measures one backend in this process. */
async function measureOne(backend: string, prompts: number, fresh: boolean): Promise<void> {
  let open = () => Promise.resolve(inProcess);
  let child: Deno.ChildProcess | undefined;
  let lines: ReadableStreamDefaultReader<string> | undefined;
  if (backend === "endpoint") {
    child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-net", import.meta.filename!, "serve"],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const port = Number((await lines.read()).value!.trim());
    open = () =>
      openEndpointModel({ baseUrl: `http://127.0.0.1:${port}/v1`, env: () => undefined });
  }
  try {
    const { heapKib, rssKib } = await measure(open, prompts, fresh);
    console.log(
      `${backend}, ${prompts} prompts in ${fresh ? "fresh sessions" : "one session"}: ` +
        `heap ${heapKib.toFixed(2)} KiB/prompt, resident ${rssKib.toFixed(1)} KiB/prompt`,
    );
  } finally {
    child?.kill();
    await lines?.cancel();
    await child?.status;
  }
}

const [first, second, third] = Deno.args;
if (first === "serve") serve();
else if (third !== undefined) await measureOne(third, Number(first), second === "fresh");
else {
  // Each backend in a process of its own: the resident set is the process's.
  for (const backend of ["in-process", "endpoint"]) {
    await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        "--v8-flags=--expose-gc",
        import.meta.filename!,
        first ?? "1000",
        second ?? "one",
        backend,
      ],
      stdout: "inherit",
      stderr: "inherit",
    }).output();
  }
}
