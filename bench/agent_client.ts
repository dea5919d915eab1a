/**
 * The real agent (`bin/llama-agent acp`) driven over stdio for the benchmarks, through the test
 * harness (which also checks every message it sends against the protocol).
 */
import { z } from "zod";
import { AcpHarness, sessionUpdatesOf } from "../tests/helpers/acp_harness.ts";
import { type CutTurn, sleep } from "./cut_turn.ts";

/** A turn on the random-weights model takes seconds; loading it, a few more. */
const PROMPT_TIMEOUT_MS = 300_000;

const NewSessionResult = z.looseObject({ sessionId: z.string() });
const PromptResult = z.looseObject({
  stopReason: z.string(),
  _meta: z.looseObject({
    tokens: z.object({ prompt: z.number(), evaluated: z.number(), generated: z.number() }),
  }),
});
export type PromptResult = z.infer<typeof PromptResult>;

export interface BenchAgentOptions {
  /** The launch directory (read-write for the agent); sessions work here. */
  readonly cwd: string;
  /** HOME: the other directory the agent may read, so the model files live under it. */
  readonly home: string;
  /** Arguments after `acp`. */
  readonly args: readonly string[];
}

export class BenchAgent {
  private constructor(readonly harness: AcpHarness, private readonly cwd: string) {}

  /** Spawns the agent and initializes the connection (it starts loading its model then). */
  static async start(options: BenchAgentOptions): Promise<BenchAgent> {
    const harness = await AcpHarness.start({
      cwd: options.cwd,
      home: options.home,
      args: options.args,
      requestTimeoutMs: PROMPT_TIMEOUT_MS,
    });
    try {
      await harness.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
    } catch (error) {
      await harness.close({ allowViolations: true });
      throw error;
    }
    return new BenchAgent(harness, options.cwd);
  }

  async newSession(): Promise<string> {
    const result = await this.harness.call("session/new", { cwd: this.cwd, mcpServers: [] });
    return NewSessionResult.parse(result).sessionId;
  }

  /** Frees the session's context in the model. */
  async closeSession(sessionId: string): Promise<void> {
    await this.harness.call("session/close", { sessionId });
  }

  /** One prompt, run to its end. */
  async prompt(sessionId: string, text: string): Promise<PromptResult> {
    const result = await this.harness.call("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text }],
    });
    return PromptResult.parse(result);
  }

  /**
   * One prompt in `sessionId` (a new session: its context is created inside the turn, as the
   * baseline's is), cancelled `cutAfterMs` after its first streamed text.
   */
  async cutTurn(sessionId: string, text: string, cutAfterMs: number): Promise<CutTurn> {
    const startedAt = performance.now();
    const responding = this.harness.call("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text }],
    });
    const firstText = this.harness.waitForNotification(
      (notification) =>
        sessionUpdatesOf([notification], sessionId).some((update) =>
          update.sessionUpdate === "agent_message_chunk"
        ),
      { timeoutMs: PROMPT_TIMEOUT_MS, what: "the turn's first agent_message_chunk" },
    );
    const endedEarly = responding.then((result) => {
      throw new Error(`The turn ended before streaming any text: ${JSON.stringify(result)}`);
    });
    await Promise.race([firstText, endedEarly]);
    endedEarly.catch(() => {}); // settled by the answer later; only its early end matters
    const firstAt = performance.now();
    await sleep(cutAfterMs);
    await this.harness.notify("session/cancel", { sessionId });
    const result = PromptResult.parse(await responding);
    const endedAt = performance.now();
    if (result.stopReason !== "cancelled") {
      throw new Error(`The turn was not cut: it ended with "${result.stopReason}"`);
    }
    return {
      wallMs: endedAt - startedAt,
      decodeMs: endedAt - firstAt,
      tokens: result._meta.tokens,
    };
  }

  /** Ends the agent; fails on any protocol violation the harness saw. */
  async close(): Promise<void> {
    await this.harness.close();
  }
}
