/**
 * Runs one session case in process: the real ACP agent (`createAgentApp`) with the case's
 * scripted model, connected in memory to a scripted client, in the case's hermetic place; the
 * prompts sent in order; then `expect` compared with what happened.
 *
 * What is recorded, and from where:
 * - hooks: the agent's `observeFiring`, in the order the firings started; firings that ran no
 *   hook are left out of `expect.hooks`.
 * - tools: the `tool_call` / `tool_call_update` updates (name as emitted, dispatched = got
 *   `in_progress`, final status) with the transcript's `tool_call` records (the input it ran with).
 * - what the model received: every request to the session's model (system prompt with the
 *   SessionStart context, prompts with injected context, tool results); what the evaluator of
 *   prompt and agent hooks received, apart.
 * - notices and agent text: `agent_message_chunk` updates, split on `_meta["llama-agent/notice"]`.
 *
 * Confinement: whatever the model does (its guard may be broken), the project, anything outside
 * it and the user's HOME stay untouched. The case always runs in a temporary copy of the project
 * with a HOME of its own, which are the agent's only allowed roots (file tools, local or through
 * the client, cannot leave them); shell commands are answered from the scenario, not run, unless
 * the case opts in to `execute` (see `ScriptedShell`). The case's plugins are copies in its
 * place (`CLAUDE_PLUGIN_DATA` in its HOME); they are loaded once before the session to check
 * that each of them loads, then by the agent as `--plugin-dir` would.
 *
 * Determinism: the session id is `test-session-<n>`; tool call ids are `call_<n>` (prompt ids,
 * message ids and the transcript's `createdAt` stay real: nothing compares them). Hooks get
 * the hermetic environment, and so do executed shell commands (local or in the client's terminal).
 * Before the agent shuts down, every hook still running (Notification hooks run beside the turn)
 * is waited for: each ends by its own timeout at the latest; then shutdown kills what is left.
 * An interrupted run (`signal`) cancels the prompt running and waits for nothing.
 *
 * `prompt` and `agent` hooks are answered from `session.evaluator`, one turn per model call in
 * the order the calls are made; without it they give a non-blocking error that says so.
 */
import type { SessionNotification, StopReason } from "@agentclientprotocol/sdk";
import { relative, resolve } from "node:path";
import { createAgentApp, PROTOCOL_VERSION } from "../../acp/agent_app.ts";
import { type AgentConfig, DEFAULT_MAX_TOOL_ROUNDS } from "../../acp/agent_config.ts";
import { createModelEvaluator } from "../../acp/model_evaluator.ts";
import { createModelProvider } from "../../acp/model_provider.ts";
import { STOP_HOOKS_CONTINUE_CONFIG_ID } from "../../acp/session/session_config.ts";
import { allowedRoots } from "../../os/files/allowed_roots.ts";
import { LocalFileAccess } from "../../agent/files/local_file_access.ts";
import { DEFAULT_PERMISSION_MODE } from "../../agent/permissions/permission_policy.ts";
import { NOTICE_META_KEY, readTranscript } from "../../agent/transcript/transcript_reader.ts";
import { withoutParagraphBreaks } from "../../acp/session/message_paragraphs.ts";
import { transcriptPathFor } from "../../agent/transcript/transcript_path.ts";
import { AgentError, errorMessage } from "../../error.ts";
import { readConfigFile } from "../../config_file.ts";
import type { Evaluator } from "../../hooks/handlers/evaluator.ts";
import { createHandlerRunner } from "../../hooks/handlers/handler_dispatch.ts";
import type { HandlerRunner } from "../../hooks/handler_runner.ts";
import type { HookFiring } from "../../hooks/hook_engine.ts";
import type { Unmatched } from "../../hooks/registry.ts";
import { VERSION } from "../../version.ts";
import type { CaseResult, ExplainedFiring, ShellCall } from "../scenarios/case_result.ts";
import { placePluginsFailure } from "./case_plugins.ts";
import {
  type CaseInput,
  erroredCase,
  finishedCase,
  inHermeticPlace,
  testSessionId,
} from "./case_input.ts";
import { FailureList } from "./expectation_match.ts";
import { explainFiring } from "./explain_firing.ts";
import type { HermeticPlace } from "./hermetic_env.ts";
import { receivedTexts, recordingModel, sharedScriptModel } from "./recording_model.ts";
import type { SessionCase } from "../scenarios/scenario_schema.ts";
import { scriptedClient } from "./scripted_client.ts";
import { ScriptedShell } from "./scripted_shell.ts";
import {
  checkSessionExpectations,
  type ObservedTool,
  type SessionObservations,
} from "./session_expectations.ts";

/** Answers prompt/agent hooks of a session case that has no evaluator script. */
export const NO_EVALUATOR_SCRIPT: Evaluator = {
  evaluate: (request) =>
    Promise.reject(
      new Error(
        `"${request.kind}" hooks in a session case need a "session.evaluator" script ` +
          "with their answers",
      ),
    ),
};

export async function runSessionCase(input: CaseInput<SessionCase>): Promise<CaseResult> {
  // Whatever the placement says: a session's model must not reach the project itself.
  const isolated = { ...input, placement: { ...input.placement, isolate: true } };
  return await inHermeticPlace(
    isolated,
    "session",
    (place, started) => driveAndCheck(isolated, place, started),
  );
}

interface SessionRun {
  readonly firings: readonly HookFiring[];
  /** Per firing, the registrations that did not run and why, as the session selected them. */
  readonly unmatched: ReadonlyMap<HookFiring, readonly Unmatched[]>;
  readonly updates: readonly SessionNotification[];
  readonly responses: SessionObservations["responses"];
  readonly modelTexts: readonly string[];
  readonly evaluatorTexts: readonly string[];
  readonly shellCalls: readonly ShellCall[];
  /** Why the session could not be driven to its end (a prompt that failed). */
  readonly failure: string | null;
}

async function driveAndCheck(
  input: CaseInput<SessionCase>,
  place: HermeticPlace,
  started: number,
): Promise<CaseResult> {
  const sessionId = testSessionId(input.index);
  const broken = await placePluginsFailure(place, input.profile);
  if (broken !== null) return erroredCase(input, "session", started, broken);
  const run = await driveSession(input, place, sessionId);
  const explain = input.explain
    ? explainAll(run.firings, run.unmatched, place.originalPath)
    : undefined;
  const shellCalls = run.shellCalls.length > 0 ? { shellCalls: run.shellCalls } : {};
  if (run.failure !== null) {
    return { ...erroredCase(input, "session", started, run.failure, explain), ...shellCalls };
  }

  const tools = await observedTools(run.updates, transcriptPathFor(sessionId, place.lookup));
  const seen: SessionObservations = {
    firings: run.firings.filter((firing) => firing.runs.length > 0),
    tools,
    modelTexts: run.modelTexts,
    evaluatorTexts: run.evaluatorTexts,
    files: await readFiles(place, Object.keys(input.spec.expect.files ?? {})),
    responses: run.responses,
    shellExecuted: input.spec.session.execute === true,
    ...messages(run.updates),
  };
  const failures = new FailureList(input.location.pointer, input.lineOf);
  checkSessionExpectations(input.spec.expect, seen, failures);
  return { ...finishedCase(input, "session", started, failures.failures, explain), ...shellCalls };
}

async function driveSession(
  input: CaseInput<SessionCase>,
  place: HermeticPlace,
  sessionId: string,
): Promise<SessionRun> {
  const script = input.spec.session;
  const logs: string[] = [];
  const log = (line: string) => logs.push(line);
  const { model, log: requests } = recordingModel(script.model);
  const models = createModelProvider(() => Promise.resolve(model));
  const evaluatorScript = script.evaluator;
  const evaluator = evaluatorScript === undefined ? undefined : sharedScriptModel(evaluatorScript);
  const evaluatorModels = evaluator === undefined
    ? undefined
    : createModelProvider(() => Promise.resolve(evaluator.model));
  const hookRuns = new RunningHooks();
  const firings: { firing: HookFiring; order: number }[] = [];
  const unmatched = new Map<HookFiring, readonly Unmatched[]>();
  const killGrace = input.killGraceMs === undefined ? {} : { killGraceMs: input.killGraceMs };
  const shell = new ScriptedShell({
    answers: script.shell ?? [],
    execute: script.execute === true,
    env: place.env,
  });
  const config: AgentConfig = {
    models,
    launchCwd: place.cwd,
    home: place.home,
    env: place.lookup,
    defaultMode: script.mode ?? DEFAULT_PERMISSION_MODE,
    rules: [],
    maxToolRounds: DEFAULT_MAX_TOOL_ROUNDS,
    profile: input.profile,
    pluginDirs: place.pluginDirs,
    version: VERSION,
    hookRunner: (roots) =>
      hookRuns.track(createHandlerRunner({
        baseEnv: place.env,
        evaluator: evaluatorModels === undefined
          ? NO_EVALUATOR_SCRIPT
          : createModelEvaluator({ models: evaluatorModels, roots, log }),
        ...killGrace,
        // Every process of a case ends with it, background children of hooks included.
        reapGroupOnExit: true,
      })),
    observeFiring: (_session, firing, order, skipped) => {
      firings.push({ firing, order });
      unmatched.set(firing, skipped);
    },
    newSessionId: () => sessionId,
    // test-prompt-<case>-<k>: the same in every run, and unlike the event cases' test-prompt-<n>.
    newPromptId: (() => {
      let prompts = 0;
      return () => `test-prompt-${input.index}-${++prompts}`;
    })(),
    shellEnv: place.env,
    localShell: shell.localRunner(),
    log,
  };
  const agent = createAgentApp(config);
  const client = scriptedClient({
    spec: script.client,
    env: place.env,
    cwd: place.cwd,
    files: new LocalFileAccess({
      cwd: place.cwd,
      roots: await allowedRoots({ launchCwd: place.cwd, home: place.home }),
    }),
    shell,
    ...killGrace,
  });
  const connection = client.app.connect(agent.app);
  const responses: { stopReason: StopReason; _meta?: Record<string, unknown> | null }[] = [];
  let failure: string | null = null;
  const rpc = connection.agent;
  // Interrupted: the prompt running is cancelled (its hooks and tools are killed), no other is
  // sent, and hooks running beside it are not waited for (shutdown kills them).
  const interrupt = () => void rpc.notify("session/cancel", { sessionId }).catch(() => {});
  input.signal?.addEventListener("abort", interrupt, { once: true });
  try {
    await rpc.request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: client.capabilities,
    });
    await rpc.request("session/new", { cwd: place.cwd, mcpServers: [] });
    if (script.stopHooksContinue !== undefined) {
      await rpc.request("session/set_config_option", {
        sessionId,
        configId: STOP_HOOKS_CONTINUE_CONFIG_ID,
        type: "boolean",
        value: script.stopHooksContinue,
      });
    }
    for (const [i, text] of script.prompts.entries()) {
      if (input.signal?.aborted) break;
      try {
        const response = await rpc.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text }],
        });
        responses.push({ stopReason: response.stopReason, _meta: response._meta ?? null });
      } catch (error) {
        failure = `Prompt ${i + 1} failed: ${errorMessage(error)}`;
        break;
      }
    }
    if (!input.signal?.aborted) await hookRuns.settled();
  } catch (error) {
    failure ??= `The session could not start: ${errorMessage(error)}`;
  } finally {
    input.signal?.removeEventListener("abort", interrupt);
    await agent.shutdown();
    connection.close();
    await connection.closed.catch(() => {});
    await client.close();
    await hookRuns.settled();
    await models.dispose();
    await evaluatorModels?.dispose();
  }
  if (failure !== null && logs.length > 0) failure += `\nagent log:\n${logs.join("\n")}`;
  return {
    // In the order they started: a slow Notification hook may finish after a later firing.
    firings: firings.toSorted((a, b) => a.order - b.order).map((f) => f.firing),
    unmatched,
    updates: client.updates.filter((u) => u.sessionId === sessionId),
    responses,
    modelTexts: receivedTexts(requests),
    evaluatorTexts: evaluator === undefined ? [] : receivedTexts(evaluator.log),
    shellCalls: shell.calls,
    failure,
  };
}

/** Every hook run in flight, so the case can wait for the ones that run beside the turn. */
class RunningHooks {
  readonly #running = new Set<Promise<unknown>>();

  track(runner: HandlerRunner): HandlerRunner {
    return (registration, payload, context) => {
      const run = runner(registration, payload, context);
      this.#running.add(run);
      const forget = () => this.#running.delete(run);
      run.then(forget, forget);
      return run;
    };
  }

  /** Resolves when no hook runs, including hooks started while waiting. */
  async settled(): Promise<void> {
    while (this.#running.size > 0) {
      await Promise.allSettled([...this.#running]);
      // The firing's observer and its notices come a few ticks after the last run ends.
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }
}

/** What did not run and why comes from the session's own selection: `if` rules saw the call. */
function explainAll(
  firings: readonly HookFiring[],
  unmatchedOf: ReadonlyMap<HookFiring, readonly Unmatched[]>,
  shownFile: (file: string) => string,
): ExplainedFiring[] {
  return firings.flatMap((firing) => {
    const unmatched = unmatchedOf.get(firing) ?? [];
    if (firing.runs.length === 0 && unmatched.length === 0) return [];
    return [explainFiring(firing, unmatched, shownFile)];
  });
}

async function observedTools(
  updates: readonly SessionNotification[],
  transcriptPath: string,
): Promise<ObservedTool[]> {
  const calls = new Map<
    string,
    { name: string; input: unknown; dispatched: boolean; status: ObservedTool["status"] }
  >();
  for (const { update } of updates) {
    if (update.sessionUpdate === "tool_call") {
      const emitted = update._meta?.["tool_name"];
      calls.set(update.toolCallId, {
        name: typeof emitted === "string" ? emitted : update.title,
        input: update.rawInput,
        dispatched: false,
        status: null,
      });
    } else if (update.sessionUpdate === "tool_call_update") {
      const call = calls.get(update.toolCallId);
      if (call === undefined) continue;
      if (update.status === "in_progress") call.dispatched = true;
      if (update.status === "completed" || update.status === "failed") call.status = update.status;
    }
  }
  // The transcript holds the input each call ran with (a hook's rewrite included).
  const read = await readTranscript(transcriptPath);
  if (read.ok) {
    for (const record of read.transcript.records) {
      if (record.type !== "tool_call") continue;
      const call = calls.get(record.toolCallId);
      if (call !== undefined) call.input = record.input;
    }
  }
  return [...calls].map(([toolCallId, call]) => ({ toolCallId, ...call }));
}

function messages(updates: readonly SessionNotification[]) {
  const notices: string[] = [];
  let agentText = "";
  // As the hooks and the model said them, without the breaks added between messages as sent.
  for (const { update } of withoutParagraphBreaks(updates)) {
    if (update.sessionUpdate !== "agent_message_chunk" || update.content.type !== "text") continue;
    if (update._meta?.[NOTICE_META_KEY]) notices.push(update.content.text);
    else agentText += update.content.text;
  }
  return { notices, agentText };
}

/**
 * The files `expect.files` names, in the case's copy, null for absent ones. A path that climbs
 * out of the case's place (`../../x`) names a file the session never touched, as an absolute one
 * would: an error. Only regular files of a size a scenario could hold (the scenario is bounded
 * alike): a FIFO a hook made must not hold the case forever.
 */
async function readFiles(
  place: HermeticPlace,
  paths: readonly string[],
): Promise<Record<string, string | null>> {
  const files: Record<string, string | null> = {};
  for (const path of paths) {
    const full = resolve(place.cwd, path);
    if (relative(place.root, full).startsWith("..")) {
      throw new AgentError(
        "INPUT_INVALID",
        `Cannot check "${path}" in expect.files: it lies outside the case's place, so the ` +
          "session never touched it; name a path inside the copy of the project",
      );
    }
    try {
      files[path] = await readConfigFile(full);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        throw new AgentError(
          "INPUT_INVALID",
          `Cannot read "${path}" for expect.files: ${errorMessage(error)}`,
        );
      }
      files[path] = null;
    }
  }
  return files;
}
