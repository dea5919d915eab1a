/**
 * The real agent over real stdio on a scripted model, for tests of the connection itself: raw
 * lines in (several in one write when asked), answers looked up by id, the exit awaited.
 */
import { AcpHarness, isObject, type JsonObject } from "../helpers/acp_harness.ts";
import { withTempProject } from "../helpers/run_cli.ts";
import type { RequestId } from "../helpers/json_rpc.ts";

export interface ScriptedAgent {
  readonly agent: AcpHarness;
  /** The agent's launch directory and a valid session cwd. */
  readonly project: string;
  /** The `--model` value, unique to this agent (`ps` finds it by that). */
  readonly model: string;
}

export interface ScriptedAgentOptions {
  /** The scripted model's turns (default: none). */
  readonly turns?: readonly unknown[];
  /** Flags after `--model`. */
  readonly args?: readonly string[];
  /** Files to create in the project directory. */
  readonly files?: Readonly<Record<string, string>>;
}

/** Runs `fn` against `llama-agent acp` on a scripted model; always closes it. */
export function withScriptedAgent(
  options: ScriptedAgentOptions,
  fn: (scripted: ScriptedAgent) => Promise<void>,
): Promise<void> {
  const script = `script-${crypto.randomUUID()}.json`;
  const model = `scripted:${script}`;
  const files: Record<string, string> = {
    "home/.keep": "",
    [`project/${script}`]: JSON.stringify({ turns: options.turns ?? [] }),
  };
  for (const [path, text] of Object.entries(options.files ?? {})) files[`project/${path}`] = text;
  return withTempProject(files, async (dir) => {
    const project = `${dir}/project`;
    const agent = await AcpHarness.start({
      cwd: project,
      home: `${dir}/home`,
      args: ["--model", model, ...(options.args ?? [])],
    });
    try {
      await fn({ agent, project, model });
    } finally {
      await agent.close({ allowViolations: true });
    }
  });
}

/** A JSON-RPC request object. */
export function request(id: RequestId, method: string, params?: unknown): JsonObject {
  return { jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) };
}

export const INITIALIZE_PARAMS = { protocolVersion: 1, clientCapabilities: {} };

/** Writes `messages` as lines in a single write, so the agent reads them in one chunk. */
export async function writeTogether(
  agent: AcpHarness,
  messages: readonly JsonObject[],
): Promise<void> {
  for (const message of messages) agent.monitor.clientSent(message);
  await agent.sendRaw(messages.map((message) => JSON.stringify(message)).join("\n"));
}

/** The agent's answers (responses, not requests) in the order they were written. */
export function answers(agent: AcpHarness): JsonObject[] {
  return agent.messages.flatMap((logged) =>
    logged.from === "agent" && isObject(logged.message) && !("method" in logged.message) &&
      "id" in logged.message
      ? [logged.message]
      : []
  );
}

/** Waits for the agent's answer to `id`. */
export function answerTo(agent: AcpHarness, id: RequestId): Promise<JsonObject> {
  return agent.waitFor(() => answers(agent).find((answer) => answer.id === id), {
    what: `the answer to ${JSON.stringify(id)}`,
  });
}
