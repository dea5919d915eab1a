/**
 * The MCP benchmark's headline arms, as an editor meets the agent: the real agent process
 * (`bin/llama-agent acp`, a scripted model) driven over stdio by a bare NDJSON client in this
 * process, its session given the stdio fixture server; beside a direct SDK call of the same
 * fixture. A round is a direct call, a prompt whose model makes one `mcp__fixture__echo` call
 * and answers, and a prompt whose model only answers, in alternating order. The client does no
 * schema checks: what is timed is the agent's work and the pipes, not a test harness.
 */
import type { McpServer } from "@agentclientprotocol/sdk";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { LAUNCHER } from "../tests/helpers/run_cli.ts";
import { fixtureCommand } from "../tests/mcp/fixture_servers.ts";
import { sleep } from "./cut_turn.ts";

export interface OverStdioSamples {
  readonly direct: number[];
  readonly toolTurn: number[];
  readonly replyTurn: number[];
}

const TOOL = "mcp__fixture__echo";
const TOOL_PROMPT = "Echo hi with the fixture server.";
const REPLY_PROMPT = "Just say hi.";

export async function benchOverStdio(
  rounds: number,
  warmUpRounds: number,
  settleMs: number,
  server: McpServer,
): Promise<OverStdioSamples> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "bench_mcp_" }));
  const cwd = `${root}/project`;
  const home = `${root}/home`;
  await Deno.mkdir(cwd);
  await Deno.mkdir(home);
  // Even rounds prompt tool then reply, odd rounds reply then tool: the script follows.
  const turns = [];
  for (let round = 0; round < warmUpRounds + rounds; round++) {
    const call = { toolCalls: [{ name: TOOL, input: { text: "hi" } }] };
    turns.push(
      ...(round % 2 === 0 ? [call, { text: "Hi!" }, { text: "Hi!" }] : [
        { text: "Hi!" },
        call,
        { text: "Hi!" },
      ]),
    );
  }
  await Deno.writeTextFile(`${cwd}/model.json`, JSON.stringify({ turns }));
  await Deno.writeTextFile(
    `${cwd}/rules.json`,
    JSON.stringify({ rules: [{ tool: TOOL, decision: "allow" }] }),
  );
  const agent = AgentProcess.start(cwd, home, [
    "acp",
    "--model",
    "scripted:model.json",
    "--rules",
    "rules.json",
  ]);
  const { command, args } = fixtureCommand();
  const client = new Client({ name: "bench-mcp", version: "0.0.0-bench" });
  const samples: OverStdioSamples = { direct: [], toolTurn: [], replyTurn: [] };
  try {
    await client.connect(new StdioClientTransport({ command, args, env: Deno.env.toObject() }));
    await client.listTools();
    await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await agent.request("session/new", { cwd, mcpServers: [server] }) as {
      sessionId: string;
    };
    const direct = async () => {
      await sleep(settleMs);
      const start = performance.now();
      await client.callTool({ name: "echo", arguments: { text: "hi" } });
      return performance.now() - start;
    };
    const turn = async (text: string, toolCalls: number) => {
      await sleep(settleMs);
      const from = agent.updates.length;
      const start = performance.now();
      const response = await agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text }],
      }) as { stopReason: string };
      const elapsed = performance.now() - start;
      const completed = agent.updates.slice(from).filter((u) =>
        u.sessionUpdate === "tool_call_update" && u.status === "completed"
      ).length;
      if (response.stopReason !== "end_turn" || completed !== toolCalls) {
        throw new Error(
          `The bench turn went wrong: ${JSON.stringify(response)}, ${completed} completed ` +
            "tool call(s)",
        );
      }
      return elapsed;
    };
    for (let round = 0; round < warmUpRounds + rounds; round++) {
      const keep = round >= warmUpRounds;
      const arms = round % 2 === 0
        ? [["direct", direct], ["tool", () =>
          turn(TOOL_PROMPT, 1)], [
          "reply",
          () => turn(REPLY_PROMPT, 0),
        ]] as const
        : [["reply", () => turn(REPLY_PROMPT, 0)], ["tool", () => turn(TOOL_PROMPT, 1)], [
          "direct",
          direct,
        ]] as const;
      for (const [arm, run] of arms) {
        const ms = await run();
        if (!keep) continue;
        if (arm === "direct") samples.direct.push(ms);
        else if (arm === "tool") samples.toolTurn.push(ms);
        else samples.replyTurn.push(ms);
      }
    }
  } catch (error) {
    await client.close();
    const stderr = await agent.close();
    throw new Error(`${error}\nThe agent's stderr ends:\n${stderr.slice(-3000)}`);
  } finally {
    await client.close();
    await agent.close();
    await Deno.remove(root, { recursive: true });
  }
  return samples;
}

interface Update {
  readonly sessionUpdate: string;
  readonly status?: string;
}

/** The agent over stdio, with just enough JSON-RPC to send requests and keep the updates. */
class AgentProcess {
  readonly updates: Update[] = [];
  readonly #pending = new Map<number, PromiseWithResolvers<unknown>>();
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #reading: Promise<void>;
  readonly #stderr: Promise<string>;
  #nextId = 1;

  private constructor(private readonly child: Deno.ChildProcess) {
    this.#writer = child.stdin.getWriter();
    this.#reading = this.#read();
    this.#stderr = new Response(child.stderr).text();
  }

  static start(cwd: string, home: string, args: readonly string[]): AgentProcess {
    const child = new Deno.Command(LAUNCHER, {
      args: [...args],
      cwd,
      env: { HOME: home, XDG_CACHE_HOME: `${home}/.cache`, XDG_STATE_HOME: `${home}/.state` },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    return new AgentProcess(child);
  }

  async request(method: string, params: unknown): Promise<unknown> {
    const id = this.#nextId++;
    const answer = Promise.withResolvers<unknown>();
    this.#pending.set(id, answer);
    const line = JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n";
    await this.#writer.write(new TextEncoder().encode(line));
    return await answer.promise;
  }

  /** Closes stdin (the agent exits) and returns what it wrote on stderr. */
  async close(): Promise<string> {
    await this.#writer.close().catch(() => {});
    await this.child.status;
    await this.#reading;
    for (const pending of this.#pending.values()) pending.reject(new Error("The agent exited"));
    this.#pending.clear();
    return await this.#stderr;
  }

  async #read(): Promise<void> {
    let buffered = "";
    for await (const chunk of this.child.stdout.pipeThrough(new TextDecoderStream())) {
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line.trim() !== "") this.#handle(JSON.parse(line));
      }
    }
  }

  #handle(message: {
    id?: number;
    method?: string;
    params?: { update?: Update };
    result?: unknown;
    error?: unknown;
  }): void {
    if (message.method === "session/update" && message.params?.update) {
      this.updates.push(message.params.update);
      return;
    }
    if (message.method !== undefined) {
      throw new Error(`The bench client does not answer ${message.method}`);
    }
    const pending = message.id === undefined ? undefined : this.#pending.get(message.id);
    if (!pending) return;
    this.#pending.delete(message.id!);
    if (message.error) pending.reject(new Error(JSON.stringify(message.error)));
    else pending.resolve(message.result);
  }
}
