/**
 * What the in-process session tests (the `claude` profile's and the hook seams') set up the same
 * way: a prompt of one text, a scripted model that makes given tool calls and keeps each request
 * it was given, the key order every payload of a turn starts with, the last `tool_call_update`,
 * and a hook that hangs until a cancel kills it.
 */
import type { ContentBlock, SessionNotification, SessionUpdate } from "@agentclientprotocol/sdk";
import type { GenerateRequest, RequestedToolCall } from "../../src/model/model.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { livingPidsMatching } from "../hooks/process_probe.ts";
import { callTool, reply, type Step, steppedModel } from "./fake_models.ts";
import type { InMemoryAgent } from "./in_memory_agent.ts";

/** A prompt of one text block. */
export const text = (t: string): ContentBlock[] => [{ type: "text", text: t }];

/** A stepped model that also keeps, in `requests`, what it was given on each call. */
export function recordingModel(steps: readonly Step[], requests: GenerateRequest[] = []) {
  return steppedModel(steps.map((step) => (r: GenerateRequest) => (requests.push(r), step(r))));
}

/** One model reply asking for all of `calls` at once. */
export function batch(calls: readonly RequestedToolCall[]): Step {
  return () => ({
    text: "",
    thought: "",
    toolCalls: calls,
    stop: "tool_calls",
    tokens: { prompt: 1, evaluated: 1, generated: 1 },
  });
}

/** A model that asks for these batches, one per reply, then answers "done". */
export function batches(
  list: readonly (readonly RequestedToolCall[])[],
  requests: GenerateRequest[] = [],
) {
  return recordingModel([...list.map(batch), reply("done")], requests);
}

/** A model that makes these calls, one per reply, then answers "done". */
export function calling(calls: readonly [string, unknown][], requests: GenerateRequest[] = []) {
  return recordingModel(
    [...calls.map(([name, input]) => callTool(name, input)), reply("done")],
    requests,
  );
}

/** A model that makes one call, then answers "done". */
export function oneCall(name: string, input: unknown, requests: GenerateRequest[] = []) {
  return calling([[name, input]], requests);
}

/** The keys every payload fired during a prompt starts with, in Claude Code's order. */
export const TURN_KEYS = [
  "session_id",
  "transcript_path",
  "cwd",
  "prompt_id",
  "permission_mode",
] as const;

/** The same in the `claude` profile on the events that send `effort`, up to the event name. */
export const CLAUDE_TURN_KEYS = [...TURN_KEYS, "effort", "hook_event_name"] as const;

export type ToolCallUpdate = Extract<SessionUpdate, { sessionUpdate: "tool_call_update" }>;

/** The last `tool_call_update` among `updates`; there must be one. */
export function lastToolCallUpdate(updates: readonly SessionNotification[]): ToolCallUpdate {
  const final = updates.map((u) => u.update).filter((u) => u.sessionUpdate === "tool_call_update")
    .at(-1);
  assert(final?.sessionUpdate === "tool_call_update", "no tool_call_update was sent");
  return final;
}

export const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

/**
 * An argument for `sleep` that no other process has (`<seconds>.<random>`), so a test can find
 * its hook's process and see that nothing of it survives.
 */
export function sleepMarker(seconds: number): string {
  return `${seconds}.${Math.floor(Math.random() * 1e6)}`;
}

/** Waits until a process whose command line holds `marker` runs (a hook that has started). */
export async function untilRunning(marker: string): Promise<void> {
  const deadline = performance.now() + 5000;
  while ((await livingPidsMatching(marker)).length === 0) {
    assert(performance.now() < deadline, `no process "${marker}" ever started`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A hook command that sleeps (`sleep <marker>`), then touches `late` in the project. */
export function hangingHook(marker: string): string {
  return `sleep ${marker}; touch "$CLAUDE_PROJECT_DIR/late"`;
}

/**
 * Prompts a new session and cancels the turn once `hangingHook(marker)` runs: the turn ends
 * `cancelled`, the hook is killed, and it never got past its sleep.
 */
export async function cancelWhileHanging(t: InMemoryAgent, marker: string): Promise<void> {
  const sessionId = await t.newSession();
  const prompt = t.agent.request("session/prompt", { sessionId, prompt: text("go") });
  await untilRunning(`sleep ${marker}`);
  await t.agent.notify("session/cancel", { sessionId });
  assertEquals((await prompt).stopReason, "cancelled");
  assertEquals(await livingPidsMatching(`sleep ${marker}`), [], "the hook was killed");
  assertEquals(await exists(`${t.cwd}/late`), false, "it never got past its sleep");
}
