/**
 * The agent in the bench's own process, for timing its hook seams: `createAgentApp` with the
 * `acp` command's configuration (real command hooks through `createHandlerRunner({})`, the
 * default permission mode), a scripted model instead of inference, and an SDK client connected
 * in memory that notes when each session update arrives.
 *
 * In process rather than over stdio, so a figure holds the seams and not pipe and JSON noise,
 * and so a bare spawn measured by the bench forks a process of the same size as the agent's
 * hooks do (a detached spawn forks the whole process).
 */
import { compatProfile, type CompatProfileId } from "../src/profile/compat_profile.ts";
import * as acp from "@agentclientprotocol/sdk";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { createAgentApp } from "../src/acp/agent_app.ts";
import { DEFAULT_MAX_TOOL_ROUNDS } from "../src/acp/agent_config.ts";
import { NOTICE_META_KEY } from "../src/acp/session/hook_notices.ts";
import { createModelProvider } from "../src/acp/model_provider.ts";
import { DEFAULT_PERMISSION_MODE } from "../src/agent/permissions/permission_policy.ts";
import { createHandlerRunner } from "../src/hooks/handlers/handler_dispatch.ts";
import type { FiredEventName } from "../src/hooks/event_table.ts";
import type { HookFiring } from "../src/hooks/hook_engine.ts";
import { type ModelScript, scriptedModel } from "../src/model/scripted/scripted_model.ts";
import { sleep } from "./cut_turn.ts";
import { minorFaults } from "./minor_faults.ts";

/** A wait on the agent that takes longer than this is a broken bench, not a slow one. */
const WAIT_TIMEOUT_MS = 30_000;

export interface SeamAgentOptions {
  /** The agent's launch directory: sessions may work anywhere under it. */
  readonly launchCwd: string;
  /**
   * `$HOME`: the user settings file and the transcripts live under it. Undefined: HOME unset
   * (then `stateHome` must say where raw.jsonl goes, or it would land in the bench's own cwd).
   */
  readonly home: string | undefined;
  /** `$XDG_STATE_HOME`, where raw.jsonl goes; unset when absent (`$HOME/.local/state`). */
  readonly stateHome?: string;
  /** Played from its first turn by every session. */
  readonly script: ModelScript;
  /** `--compat` (default: llama). */
  readonly profile?: CompatProfileId;
  /**
   * How the client answers `session/request_permission`: "unexpected" (default) counts an ask as
   * a broken bench turn; "allow_once" allows at once, and the turn counts its asks.
   */
  readonly permission?: "unexpected" | "allow_once";
  /** The agent's log lines; default: stderr. */
  readonly log?: (line: string) => void;
}

export interface TimedPrompt {
  readonly stopReason: string;
  /** From sending `session/prompt` to its response. */
  readonly responseMs: number;
  /** From sending `session/prompt` to the first `agent_message_chunk` (hook notices aside). */
  readonly firstChunkMs: number;
  /** From sending `session/prompt` to the first chunk of the turn's last message. */
  readonly lastMessageMs: number;
  /** Minor page faults of this process from the request to the response. */
  readonly minorFaults: number;
  /** Distinct agent messages the turn streamed. */
  readonly messages: number;
  /** `session/request_permission` requests the client answered during the turn. */
  readonly permissionRequests: number;
  /** The turn's updates, in arrival order. */
  readonly updates: readonly SessionUpdate[];
}

interface Arrival {
  readonly update: SessionUpdate;
  readonly at: number;
}

/** What one session has received, with waits on it. */
class SessionFeed {
  readonly arrivals: Arrival[] = [];
  readonly firings: HookFiring[] = [];
  #waiters: { test: () => boolean; resolve: () => void }[] = [];

  add(arrival: Arrival): void {
    this.arrivals.push(arrival);
    this.#wake();
  }

  addFiring(firing: HookFiring): void {
    this.firings.push(firing);
    this.#wake();
  }

  async until(test: () => boolean, what: string): Promise<void> {
    if (test()) return;
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#waiters.push({ test, resolve });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Bench waited ${WAIT_TIMEOUT_MS} ms for ${what}`)),
        WAIT_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([promise, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  #wake(): void {
    this.#waiters = this.#waiters.filter((waiter) => {
      if (!waiter.test()) return true;
      waiter.resolve();
      return false;
    });
  }
}

/** Every session's feed, made on first mention (an update can come before its session's id). */
class Feeds {
  readonly #feeds = new Map<string, SessionFeed>();

  of(sessionId: string): SessionFeed {
    let feed = this.#feeds.get(sessionId);
    if (!feed) {
      feed = new SessionFeed();
      this.#feeds.set(sessionId, feed);
    }
    return feed;
  }

  forget(sessionId: string): void {
    this.#feeds.delete(sessionId);
  }
}

export class SeamAgent {
  private constructor(
    private readonly client: acp.ClientContext,
    private readonly feeds: Feeds,
    /** Tool call ids the agent asked permission for. */
    private readonly permissionRequests: readonly string[],
    /** Whether an ask is part of the bench's turn rather than a broken one. */
    private readonly asksExpected: boolean,
    private readonly stop: () => Promise<void>,
  ) {}

  /** Creates the agent, connects a client and initializes the connection. */
  static async open(options: SeamAgentOptions): Promise<SeamAgent> {
    if (options.home === undefined && options.stateHome === undefined) {
      throw new Error("A bench agent without HOME needs stateHome, or raw.jsonl lands in ./");
    }
    const env: Record<string, string | undefined> = {
      HOME: options.home,
      XDG_STATE_HOME: options.stateHome,
    };
    const asksExpected = options.permission === "allow_once";
    const models = createModelProvider(() => Promise.resolve(scriptedModel(options.script)));
    const feeds = new Feeds();
    const permissionRequests: string[] = [];
    const handle = createAgentApp({
      models,
      launchCwd: options.launchCwd,
      home: options.home,
      env: (name) => env[name],
      defaultMode: DEFAULT_PERMISSION_MODE,
      rules: [],
      maxToolRounds: DEFAULT_MAX_TOOL_ROUNDS,
      profile: compatProfile(options.profile),
      // As the `acp` command runs hooks: the bench's environment, the default kill grace.
      hookRunner: () => createHandlerRunner({}),
      observeFiring: (sessionId, firing) => feeds.of(sessionId).addFiring(firing),
      version: "0.0.0-bench",
      log: options.log ?? ((line) => console.error(`bench agent: ${line}`)),
    });
    const clientApp = acp.client({ name: "seams-bench" })
      .onNotification("session/update", ({ params }) => {
        const at = performance.now();
        feeds.of(params.sessionId).add({ update: params.update, at });
      })
      .onRequest("session/request_permission", ({ params }) => {
        permissionRequests.push(params.toolCall.toolCallId);
        return asksExpected
          ? { outcome: { outcome: "selected", optionId: "allow_once" } }
          : { outcome: { outcome: "cancelled" } };
      });
    const connection = clientApp.connect(handle.app);
    const agent = new SeamAgent(
      connection.agent,
      feeds,
      permissionRequests,
      asksExpected,
      async () => {
        await handle.shutdown();
        connection.close();
        await connection.closed.catch(() => {});
        await models.dispose();
      },
    );
    await connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    return agent;
  }

  /**
   * `session/new` in `cwd`, and the wait for the updates the agent sends right after its
   * answer, so that a timed prompt does not share the event loop with them.
   */
  async newSession(cwd: string): Promise<string> {
    const { sessionId } = await this.client.request("session/new", { cwd, mcpServers: [] });
    const feed = this.feeds.of(sessionId);
    await feed.until(
      () => feed.arrivals.some((a) => a.update.sessionUpdate === "available_commands_update"),
      "the session's available_commands_update",
    );
    return sessionId;
  }

  /** One prompt, timed from the request to its response and to the messages it streamed. */
  async prompt(sessionId: string, text: string): Promise<TimedPrompt> {
    const feed = this.feeds.of(sessionId);
    const from = feed.arrivals.length;
    const permissionsBefore = this.permissionRequests.length;
    const faultsBefore = minorFaults();
    const sent = performance.now();
    const response = await this.client.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text }],
    });
    const answered = performance.now();
    const faults = minorFaults() - faultsBefore;
    const asks = this.permissionRequests.length - permissionsBefore;
    if (asks > 0 && !this.asksExpected) {
      throw new Error("The bench turn asked for permission: its tool calls must run unasked");
    }
    const arrivals = feed.arrivals.slice(from);
    const firstChunks = new Map<string, number>();
    for (const { update, at } of arrivals) {
      if (update.sessionUpdate !== "agent_message_chunk") continue;
      if (update._meta?.[NOTICE_META_KEY] === true) continue;
      const id = update.messageId ?? "";
      if (!firstChunks.has(id)) firstChunks.set(id, at);
    }
    const starts = [...firstChunks.values()];
    return {
      stopReason: response.stopReason,
      responseMs: answered - sent,
      firstChunkMs: (starts[0] ?? Number.NaN) - sent,
      lastMessageMs: (starts.at(-1) ?? Number.NaN) - sent,
      minorFaults: faults,
      messages: starts.length,
      permissionRequests: asks,
      updates: arrivals.map((a) => a.update),
    };
  }

  /** The hook firings the session has finished so far, in the order they finished. */
  firings(sessionId: string): readonly HookFiring[] {
    return this.feeds.of(sessionId).firings;
  }

  /** Waits until `count` firings of `event` in the session have finished. */
  async untilFirings(sessionId: string, event: FiredEventName, count: number): Promise<void> {
    const feed = this.feeds.of(sessionId);
    await feed.until(
      () => feed.firings.filter((f) => f.event === event).length >= count,
      `${count} ${event} firing(s)`,
    );
  }

  async closeSession(sessionId: string): Promise<void> {
    await this.client.request("session/close", { sessionId });
    this.feeds.forget(sessionId);
  }

  /** Closes every session (killing hooks still running) and the connection. */
  async close(): Promise<void> {
    await this.stop();
  }
}

/** A settings-file hook entry that runs `command`. */
export function commandHook(command: string) {
  return { type: "command", command };
}

export interface ToolTurnPlan {
  readonly agent: SeamAgent;
  readonly cwd: string;
  /** The firings the turn must have finished, as `Event:runs` (`""`: none). */
  readonly firings: string;
  /** `session/request_permission` requests the turn must have made. */
  readonly asks: number;
  /** An idle pause before the prompt, so it starts from a quiet event loop. */
  readonly settleMs: number;
  /** Checks made after the turn, before its session closes (untimed). */
  readonly after?: (sessionId: string) => Promise<void>;
}

/**
 * One timed turn in a fresh session, of a script that makes one tool call and then answers:
 * a turn that did anything else (a failed call, a hook that failed, other firings) throws.
 * Opening and closing the session is not timed.
 */
export async function oneToolTurn(plan: ToolTurnPlan): Promise<TimedPrompt> {
  const { agent } = plan;
  const sessionId = await agent.newSession(plan.cwd);
  await sleep(plan.settleMs);
  const turn = await agent.prompt(sessionId, "Have a look and tell me.");
  const ended = (status: string) =>
    turn.updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.status === status)
      .length;
  if (
    turn.stopReason !== "end_turn" || turn.messages !== 2 || ended("failed") > 0 ||
    ended("completed") !== 1 || turn.permissionRequests !== plan.asks
  ) {
    throw new Error(
      `The bench turn went wrong: stop "${turn.stopReason}", ${turn.messages} message(s), ` +
        `${ended("completed")} completed and ${ended("failed")} failed tool call(s), ` +
        `${turn.permissionRequests} permission request(s) (expected ${plan.asks})`,
    );
  }
  const firings = agent.firings(sessionId);
  const seen = firings.map((f) => `${f.event}:${f.runs.length}`).join(" ");
  if (seen !== plan.firings) throw new Error(`The bench fired "${seen}", not "${plan.firings}"`);
  for (const run of firings.flatMap((f) => f.runs)) {
    if (run.outcome.kind !== "success") throw new Error(`A hook failed: ${JSON.stringify(run)}`);
  }
  await plan.after?.(sessionId);
  await agent.closeSession(sessionId);
  return turn;
}
