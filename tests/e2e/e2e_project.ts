/**
 * A hermetic place for end-to-end runs: a project directory (the agent's launch cwd and the
 * session cwd), a HOME holding the generated models (the launcher lets the agent read only those
 * two), and a directory outside both for escape attempts. All real paths, removed afterwards.
 */
import { AcpHarness } from "../helpers/acp_harness.ts";

export interface E2eProject {
  readonly cwd: string;
  readonly home: string;
  readonly models: string;
  /** Outside every allowed root. */
  readonly outside: string;
  /** Starts the real agent on `model`, initialized, with `extra` flags. */
  startAgent(
    model: string,
    extra?: readonly string[],
    clientCapabilities?: unknown,
  ): Promise<AcpHarness>;
  /** `session/new` in the project; returns the session id. */
  newSession(agent: AcpHarness): Promise<string>;
}

export async function withE2eProject(
  files: Readonly<Record<string, string>>,
  fn: (project: E2eProject) => Promise<void>,
): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "llama_agent_e2e_" }));
  const cwd = `${root}/project`;
  const home = `${root}/home`;
  const models = `${home}/models`;
  const outside = `${root}/outside`;
  for (const dir of [cwd, models, outside]) await Deno.mkdir(dir, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    const full = `${root}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(full, content);
  }
  try {
    await fn({
      cwd,
      home,
      models,
      outside,
      async startAgent(model, extra = [], clientCapabilities = {}) {
        const agent = await AcpHarness.start({
          cwd,
          home,
          args: [
            "--model",
            model,
            "--threads",
            "1",
            "--gpu",
            "off",
            ...extra,
          ],
        });
        await agent.call("initialize", { protocolVersion: 1, clientCapabilities });
        return agent;
      },
      async newSession(agent) {
        const created = await agent.call("session/new", { cwd, mcpServers: [] });
        return (created as { sessionId: string }).sessionId;
      },
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** A prompt of one text block. */
export function textPrompt(prompt: string): { type: "text"; text: string }[] {
  return [{ type: "text", text: prompt }];
}

/** What the model reads for hook text: written out here, not taken from the code under test. */
export function reminder(text: string): string {
  return `<system-reminder>\n${text}\n</system-reminder>`;
}

/** Answers every permission request with allow_once, and keeps, per session, the ids asked about. */
export function allowAndRecord(agent: AcpHarness): Map<string, string[]> {
  const asked = new Map<string, string[]>();
  agent.onRequest("session/request_permission", (params) => {
    const p = params as { sessionId: string; toolCall: { toolCallId: string } };
    asked.set(p.sessionId, [...(asked.get(p.sessionId) ?? []), p.toolCall.toolCallId]);
    return { outcome: { outcome: "selected", optionId: "allow_once" } };
  });
  return asked;
}
