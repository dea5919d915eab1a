/**
 * A real OpenAI-compatible server on loopback: llama-cpp-python's `llama_cpp.server` (installed
 * by tools/install_test_parts.sh) serving a GGUF file. Started in a process group of its own and
 * killed with it, so no uvicorn worker outlives a test.
 */
import type { TestParts } from "./test_parts.ts";

export interface ServerOptions {
  readonly contextSize?: number;
  /**
   * llama-cpp-python's chat format; `chatml-function-calling` makes tool calls with a grammar
   * (the model picks a function or a message, then the call's arguments are constrained).
   */
  readonly chatFormat?: string;
  readonly threads?: number;
  /** The model id the server lists. */
  readonly alias?: string;
}

export interface RunningServer {
  readonly baseUrl: string;
  readonly alias: string;
  /** What the server wrote, for a failing test's message. */
  output(): string;
  stop(): Promise<void>;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

export async function startLlamaCppServer(
  parts: TestParts,
  options: ServerOptions = {},
): Promise<RunningServer> {
  const port = freePort();
  const alias = options.alias ?? "smollm2-135m-instruct";
  const args = [
    "-m",
    "llama_cpp.server",
    "--model",
    parts.instructModel,
    "--model_alias",
    alias,
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--n_ctx",
    String(options.contextSize ?? 2048),
    "--n_threads",
    String(options.threads ?? 1),
    "--seed",
    "7",
    ...(options.chatFormat ? ["--chat_format", options.chatFormat] : []),
  ];
  // setsid: its own group, so the group's kill reaches whatever it started.
  const child = new Deno.Command("setsid", {
    args: [parts.serverPython, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { PYTHONUNBUFFERED: "1", HF_HUB_OFFLINE: "1" },
  }).spawn();
  let output = "";
  const decoder = new TextDecoder();
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) output = (output + decoder.decode(chunk)).slice(-20_000);
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    try {
      Deno.kill(-child.pid, "SIGKILL");
    } catch {
      // Gone already.
    }
    await child.status;
    await drained;
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    const ready = await fetch(`${baseUrl}/models`).then(async (response) => {
      await response.body?.cancel();
      return response.ok;
    }, () => false);
    if (ready) break;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const exited = await Promise.race([
      child.status.then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 200))),
    ]);
    clearTimeout(timer);
    if (exited || Date.now() > deadline) {
      await stop();
      throw new Error(`llama_cpp.server did not start: ${output.slice(-2000)}`);
    }
  }
  return { baseUrl, alias, output: () => output, stop };
}
