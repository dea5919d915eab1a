/**
 * `llama-agent hooks run EVENT`: fire one event against a directory's merged settings (and, under
 * the claude profile, its plugins), under the profile a session there would get, and show what
 * every hook did, from which file or plugin, and what they decided together.
 */
import { type CliCommand, type CliIo, type CommandSpec, EXIT } from "../command_spec.ts";
import { COMPAT_FLAG } from "../options/compat_flag.ts";
import { CWD_FLAG, fail, startCommand } from "../start_command.ts";
import { renderFiring } from "../firing_report.ts";
import { hookProblems, problemCounts } from "../hook_problems.ts";
import { PLUGIN_DIR_FLAG } from "../options/plugin_dir_flag.ts";
import { invocationHooks } from "../invocation_hooks.ts";
import { transcriptPathFor } from "../../agent/transcript/transcript_path.ts";
import {
  describeGroup,
  eventGroup,
  FIRED_EVENTS,
  type FiredEventName,
  firedEvents,
  isFiredEvent,
  isHookEventName,
  PROFILE_EVENTS,
} from "../../hooks/event_table.ts";
import type { Verdict } from "../../hooks/decision.ts";
import { createHandlerRunner } from "../../hooks/handlers/handler_dispatch.ts";
import { fireHooks } from "../../hooks/hook_engine.ts";
import { isRecord } from "../../hooks/json_value_at.ts";
import { completePayload } from "../../hooks/payload_defaults.ts";
import { permissionModeFor } from "../../hooks/payload.ts";
import { selectRegistrations } from "../../hooks/registry.ts";
import { describeDecision, type ProfileDecision } from "../../hooks/profile_decision.ts";
import { errorMessage } from "../../error.ts";
import { readConfigFile } from "../../config_file.ts";
import { COMPAT_PROFILE_IDS, compatProfile } from "../../profile/compat_profile.ts";

const spec: CommandSpec = {
  path: ["hooks", "run"],
  summary: "fire one event against the merged settings and show what each hook did",
  description: "The payload's common fields (session_id, transcript_path, cwd, prompt_id,\n" +
    "permission_mode, hook_event_name) are filled in as a session would; --input gives the\n" +
    "event's own fields (tool_name, tool_input, prompt, source, ...) and may override any field.\n" +
    "The profile is --compat's, else decided from the hooks as a session's is (auto: claude\n" +
    "when they name Claude Code's tools and none of llama-agent's, else llama).\n" +
    `EVENT is one of: ${FIRED_EVENTS.join(", ")}; under the claude profile also\n` +
    `${PROFILE_EVENTS.join(", ")}.\n` +
    "Under the claude profile, the hooks of each --plugin-dir plugin and of the plugins the\n" +
    "settings enable fire too, with CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA set as in a\n" +
    "session.\n" +
    "Exit codes: 0 the event fired (whatever the hooks decided, unless --exit-code); 1 with\n" +
    "--exit-code, the decision blocks (deny on PreToolUse and PermissionRequest, keep going on\n" +
    "Stop) or stops the turn (continue:false); 2 a usage error; 130 interrupted. (1 is also the\n" +
    "exit of a file llama-agent may not read, which stderr names.)",
  flags: [
    CWD_FLAG,
    COMPAT_FLAG,
    PLUGIN_DIR_FLAG,
    {
      name: "input",
      type: "string",
      valueName: "JSON|@FILE",
      description: "Event fields as a JSON object, inline or from a file",
    },
    { name: "json", type: "boolean", description: "Print one JSON object instead of a report" },
    {
      name: "exit-code",
      type: "boolean",
      description: "Exit 1 when the decision blocks or denies, or stops the turn (for scripts)",
    },
  ],
  positionals: [{
    name: "EVENT",
    description: "The event to fire, e.g. PreToolUse",
    required: true,
  }],
  examples: [
    `llama-agent hooks run PreToolUse --input '{"tool_name":"shell","tool_input":{"command":"rm -rf /"}}'`,
    "llama-agent hooks run SessionStart",
    `llama-agent hooks run PreToolUse --compat claude --input '{"tool_name":"Bash","tool_input":{"command":"git commit -m x"}}'`,
    "llama-agent hooks run Stop --input @stop.json --json",
    `llama-agent hooks run PreToolUse --exit-code --input '{"tool_name":"shell","tool_input":{"command":"rm -rf /"}}' > /dev/null; [ $? -eq 1 ] && echo denied`,
    `llama-agent hooks run PreToolUse --compat claude --plugin-dir ~/plugins/guard --input '{"tool_name":"Bash","tool_input":{"command":"rm -rf build"}}'`,
  ],
};

export const hooksRunCommand: CliCommand = {
  spec,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const started = await startCommand(spec, args, io);
    if (!started.ok) return started.exitCode;
    const { invocation } = started;
    const pluginDirs = await invocationHooks(invocation, io);
    if (!pluginDirs.ok) return pluginDirs.exitCode;
    const { hooks, decision } = pluginDirs.choice;
    const { profile } = decision;
    const event = checkEvent(invocation.positionals[0]!, decision);
    if (!event.ok) return fail(io, event.error).exitCode;
    const inputFlag = invocation.flags["input"];
    const input = await readInput(typeof inputFlag === "string" ? inputFlag : undefined, io.cwd);
    if (!input.ok) return fail(io, input.error).exitCode;

    const sessionId =
      typeof input.value["session_id"] === "string" && input.value["session_id"] !== ""
        ? input.value["session_id"]
        : crypto.randomUUID();
    const completed = completePayload(event.name, input.value, {
      sessionId,
      transcriptPath: transcriptPathFor(sessionId, io.env),
      cwd: invocation.cwd,
      promptId: crypto.randomUUID(),
      permissionMode: permissionModeFor("auto-approve-reads"),
      effort: profile.effort,
      notifications: profile.notifications,
    });
    if (!completed.ok) return fail(io, `Invalid --input: ${completed.error}`).exitCode;

    const selection = selectRegistrations(hooks.registry, event.name, completed.matcherValue, {
      profile,
      projectDir: invocation.cwd,
      toolInput: completed.payload["tool_input"],
    });
    // What `hooks lint` finds, counted here as there.
    const problems = await hookProblems(hooks.loaded, {
      cwd: invocation.cwd,
      profile,
      env: io.env,
    });
    const abort = new AbortController();
    const onInterrupt = () => abort.abort();
    let verdict: Verdict["kind"] = "none";
    Deno.addSignalListener("SIGINT", onInterrupt);
    try {
      const firing = await fireHooks({
        event: event.name,
        matcherValue: completed.matcherValue,
        payload: completed.payload,
        outputRules: profile,
        registrations: selection.matched,
        runHandler: createHandlerRunner(),
        context: { event: event.name, cwd: invocation.cwd, sessionId, signal: abort.signal },
      });
      verdict = firing.decision.verdict.kind;
      const report = {
        cwd: invocation.cwd,
        home: io.env("HOME"),
        hooks,
        selection,
        firing,
        problems,
      };
      if (invocation.flags["json"] === true) {
        io.stdout(JSON.stringify(renderFiring.json(report), null, 2) + "\n");
      } else {
        io.stdout(renderFiring.text(report));
      }
    } finally {
      Deno.removeSignalListener("SIGINT", onInterrupt);
    }
    if (problems.length > 0) {
      io.stderr(
        `${problemCounts(problems)} in the settings chain` +
          (hooks.loaded.plugins.length > 0 || pluginDirs.pluginDirs.length > 0
            ? " and plugins"
            : "") +
          `: run "llama-agent hooks lint" for details\n`,
      );
    }
    if (abort.signal.aborted) return 130;
    return invocation.flags["exit-code"] === true && blocksOrStops(verdict)
      ? EXIT.failure
      : EXIT.ok;
  },
};

/**
 * What --exit-code reports as 1: a block or deny, or continue:false. Ask and defer hand the call
 * to someone else rather than refuse it, so they are not.
 */
function blocksOrStops(verdict: Verdict["kind"]): boolean {
  switch (verdict) {
    case "block":
    case "stop":
      return true;
    case "none":
    case "allow":
    case "ask":
    case "defer":
      return false;
    default:
      return verdict satisfies never;
  }
}

/** The event, when it fires under the profile decided; else why not, naming that decision. */
function checkEvent(
  name: string,
  decision: ProfileDecision,
): { ok: true; name: FiredEventName } | { ok: false; error: string } {
  const { profile } = decision;
  if (isFiredEvent(name, profile)) return { ok: true, name };
  const fired = firedEvents(profile).join(", ");
  if (!isHookEventName(name)) {
    return { ok: false, error: `Unknown event "${name}": use one of ${fired}` };
  }
  const elsewhere = COMPAT_PROFILE_IDS.filter((id) => isFiredEvent(name, compatProfile(id)));
  const why = elsewhere.length > 0
    ? `it fires only with --compat ${elsewhere.join("|")}, and the profile is ` +
      describeDecision(decision)
    : describeGroup(eventGroup(name, profile));
  return { ok: false, error: `"${name}" cannot be run: ${why}; events that fire: ${fired}` };
}

type InputResult =
  | { ok: true; value: Readonly<Record<string, unknown>> }
  | { ok: false; error: string };

async function readInput(flag: string | undefined, launchDir: string): Promise<InputResult> {
  if (flag === undefined) return { ok: true, value: {} };
  let text = flag;
  let where = "--input";
  if (flag.startsWith("@")) {
    const path = flag.slice(1);
    where = `"${path}"`;
    try {
      text = await readConfigFile(path.startsWith("/") ? path : `${launchDir}/${path}`);
    } catch (error) {
      return { ok: false, error: `Cannot read --input file "${path}": ${errorMessage(error)}` };
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `Invalid JSON in ${where}: ${errorMessage(error)}` };
  }
  if (!isRecord(value)) return { ok: false, error: `${where} must be a JSON object` };
  return { ok: true, value };
}
