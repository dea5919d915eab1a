/**
 * What `hooks init` will write, before anything fires: one or more event cases per registration
 * that fires here (a harmless call, then the dangerous calls its own text suggests), the tool
 * call of the session case, and a note for each hook that gets no case of its own and why.
 * Pure: the registry and the hooks' texts (command and scripts) are given.
 *
 * Choices:
 * - Cases of the same event and input are one case: two guards of one group share their
 *   harmless call, and the case checks both.
 * - `prompt` and `agent` hooks get no event case (event cases have no model to evaluate them:
 *   they would only record an error); the session case answers them `ok: true`.
 * - `http` hooks get no case of their own: a case would send a real request. They still fire
 *   in the cases of their event that they match, as in `hooks test`.
 * - A case runs in a copy of the project (`isolate`) when one of the hooks it runs may write
 *   there: a PostToolUse hook of a write or an edit (a formatter), or a script with a write in
 *   it (`sed -i`, a redirection into a file, `tee`, `git add`, ...). Writes to `$HOME` are not
 *   counted: every case's HOME is its own.
 */
import {
  FIRED_EVENTS,
  type FiredEventName,
  HOOK_EVENTS,
  isFiredEvent,
  type ProfileEventName,
} from "../../hooks/event_table.ts";
import type { Registration } from "../../hooks/registration.ts";
import { type Registry, selectRegistrations } from "../../hooks/registry.ts";
import { matches } from "../../hooks/matching/matcher.ts";
import { type CompatProfile, toolNameOf } from "../../profile/compat_profile.ts";
import {
  dangerousCalls,
  harmlessCall,
  otherEventFields,
  promptsFor,
  type ToolCallExample,
  toolResponseFor,
} from "./scaffold_inputs.ts";
import { chooseToolCall, type ChosenTool, letsThrough } from "./scaffold_tool_call.ts";
import { hookLabel } from "../runner/hook_label.ts";

/** The events an event case may fire: the scenario schema's list, those of the default profile. */
export type CaseEvent = Exclude<FiredEventName, ProfileEventName>;
type ToolEvent = "PreToolUse" | "PostToolUse" | "PostToolUseFailure";

export interface PlannedCase {
  readonly event: CaseEvent;
  readonly input: Readonly<Record<string, unknown>>;
  readonly isolate: boolean;
  /** What the case is about, for its name: `PreToolUse shell "rm -rf /"`. */
  readonly subject: string;
  /** The comment above it: where its input comes from. */
  readonly why: string;
}

export interface SessionPlan {
  readonly tool: ChosenTool;
  readonly input: Readonly<Record<string, unknown>>;
  /** Answers for prompt and agent hooks (each `ok: true`); 0 when there are none. */
  readonly evaluatorTurns: number;
}

export interface SuitePlan {
  readonly cases: readonly PlannedCase[];
  readonly session: SessionPlan;
  /** One line per hook that fires here but gets no case of its own. */
  readonly notes: readonly string[];
  /** The registrations that fire here, in chain order. */
  readonly firing: readonly Registration[];
}

export interface PlanRequest {
  readonly registry: Registry;
  readonly profile: CompatProfile;
  readonly projectDir: string;
  /** Registration id → its command and the scripts it runs, as one text. */
  readonly texts: ReadonlyMap<string, string>;
  /** Registrations that can never run here (their matcher or `if` names no tool), with why. */
  readonly neverRun: ReadonlyMap<string, string>;
}

/** Answers per evaluated hook: enough for every event of one prompt with one tool call. */
const EVALUATIONS_PER_HOOK = 6;

export function planSuite(request: PlanRequest): SuitePlan {
  const { registry, profile } = request;
  const cases: PlannedCase[] = [];
  const notes: string[] = [];
  const firing: Registration[] = [];
  const seen = new Set<string>();
  const add = (planned: Omit<PlannedCase, "isolate">) => {
    const key = `${planned.event} ${JSON.stringify(planned.input)}`;
    if (seen.has(key)) return;
    seen.add(key);
    cases.push({ ...planned, isolate: mayWrite(request, planned.event, planned.input) });
  };
  let sessionTool: { tool: ChosenTool; call: ToolCallExample } | undefined;
  for (const registration of registry.registrations) {
    const named = hookLabel(registration, registry.registrations);
    // A prompt's first words read as prose: quoted, a note says which hook it means.
    const label = /\s/.test(named) ? JSON.stringify(named) : named;
    const never = request.neverRun.get(registration.id);
    if (never !== undefined) {
      notes.push(`${label} (${registration.event}) never runs here: ${never}`);
      continue;
    }
    if (!isFiredEvent(registration.event, profile)) continue;
    firing.push(registration);
    const event = registration.event;
    if (!isCaseEvent(event)) {
      notes.push(`${label} (${event}): an event case cannot fire ${event}; a session case can`);
      continue;
    }
    const type = registration.handler.type;
    if (type === "prompt" || type === "agent") {
      notes.push(
        `${label} (${type} hook, ${event}): event cases do not evaluate ${type} hooks (there ` +
          'is no model); the session case answers it {"ok": true}. Add a session case whose ' +
          '"evaluator" answers {"ok": false, "reason": "..."} to test what it blocks',
      );
      continue;
    }
    if (type === "http") {
      notes.push(
        `${label} (http hook, ${event}): no case of its own, which would send a real request; ` +
          "it is sent one in the cases below that it matches, and what it answers is left out " +
          "of their expectations",
      );
      continue;
    }
    const text = request.texts.get(registration.id) ?? "";
    if (isToolEvent(event)) {
      const choice = chooseToolCall(registration, profile, request.projectDir);
      if (!choice.ok) {
        notes.push(`${label} (${event}) gets no case: ${choice.why}`);
        continue;
      }
      if (event === "PreToolUse" && sessionTool === undefined) sessionTool = choice;
      const calls = [
        choice.call,
        ...(event === "PreToolUse" ? dangerousCalls(choice.tool.capability, text) : []),
      ].filter((call) =>
        letsThrough(registration, choice.tool, call.input, profile, request.projectDir)
      );
      for (const call of calls) add(toolCase(event, choice.tool, call, label, profile));
      continue;
    }
    for (const planned of otherCases(event, registration, text, label)) add(planned);
  }
  const evaluated = firing.filter((r) => r.handler.type === "prompt" || r.handler.type === "agent");
  // Without a PreToolUse hook, a harmless shell call still runs every Post and Stop hook.
  const chosen = sessionTool ??
    {
      tool: { name: toolNameOf(profile, "shell"), capability: "shell" },
      call: harmlessCall("shell"),
    };
  return {
    cases,
    session: {
      tool: chosen.tool,
      input: chosen.call.input,
      evaluatorTurns: evaluated.length * EVALUATIONS_PER_HOOK,
    },
    notes,
    firing,
  };
}

function isCaseEvent(event: string): event is CaseEvent {
  return (FIRED_EVENTS as readonly string[]).includes(event);
}

function isToolEvent(event: CaseEvent): event is ToolEvent {
  return event === "PreToolUse" || event === "PostToolUse" || event === "PostToolUseFailure";
}

function toolCase(
  event: ToolEvent,
  tool: ChosenTool,
  call: ToolCallExample,
  label: string,
  profile: CompatProfile,
): Omit<PlannedCase, "isolate"> {
  // A failure case is about a command that failed, not about the harmless one.
  const toolInput = event === "PostToolUseFailure" && tool.capability === "shell" && !call.forRule
    ? { command: "make build" }
    : call.input;
  const base = { tool_name: tool.name, tool_input: toolInput };
  const input = event === "PreToolUse"
    ? base
    : event === "PostToolUse"
    ? { ...base, tool_response: toolResponseFor(tool.capability, profile, call.input) }
    : { ...base, ...failureOf(tool) };
  const what = String(toolInput["command"] ?? call.shown);
  const shown = what === "" ? "" : ` ${JSON.stringify(clip(what))}`;
  return {
    event,
    input,
    subject: `${event} ${tool.name}${shown}`,
    why: call.dangerous
      ? `A call ${label} may exist to stop, as its own text suggests: make it the call it must refuse`
      : call.forRule !== undefined
      ? `A call that the "if" rule "${call.forRule}" of ${label} holds for`
      : event === "PostToolUseFailure"
      ? `A ${tool.name} call that failed, as ${label} would see one`
      : `A harmless ${tool.name} call: every hook it runs should let it through`,
  };
}

function failureOf(tool: ChosenTool): Record<string, unknown> {
  return tool.capability === "shell"
    ? {
      error: "Exit code 2\nmake: *** No rule to make target 'build'.  Stop.",
      is_interrupt: false,
    }
    : { error: "File does not exist.", is_interrupt: false };
}

function otherCases(
  event: "SessionStart" | "UserPromptSubmit" | "Notification" | "Stop",
  registration: Registration,
  text: string,
  label: string,
): Omit<PlannedCase, "isolate">[] {
  if (event === "UserPromptSubmit") {
    return promptsFor(text).map(({ prompt, dangerous }) => ({
      event,
      input: { prompt },
      subject: `${event} ${JSON.stringify(clip(prompt))}`,
      why: dangerous
        ? `A prompt ${label} may exist to stop, as its own text suggests`
        : "An ordinary prompt",
    }));
  }
  const field = HOOK_EVENTS[event].matcherField;
  const value = field === null ? undefined : matcherValueFor(registration, event);
  const fields = otherEventFields(event, value);
  return [{
    event,
    input: fields,
    subject: value === undefined ? event : `${event} ${value}`,
    why: `${event} as a session ${event === "Stop" ? "ends a turn" : "sends it"}`,
  }];
}

/** Values the agent sends for the matcher of SessionStart and Notification. */
const MATCHER_VALUES: Readonly<Record<string, readonly string[]>> = {
  SessionStart: ["startup", "resume", "clear", "compact"],
  Notification: ["agent_message", "agent_thought", "plan", "permission_prompt", "idle_prompt"],
};

function matcherValueFor(registration: Registration, event: string): string | undefined {
  const values = MATCHER_VALUES[event] ?? [];
  return values.find((value) => matches(registration.matcher, value)) ?? values[0];
}

/** Whether a hook the case runs may write into the project (see the module comment). */
function mayWrite(
  request: PlanRequest,
  event: CaseEvent,
  input: Readonly<Record<string, unknown>>,
) {
  const field = HOOK_EVENTS[event].matcherField;
  const value = field === null ? null : String(input[field] ?? "");
  const selection = selectRegistrations(request.registry, event, value, {
    profile: request.profile,
    projectDir: request.projectDir,
    toolInput: input["tool_input"],
  });
  const writesFiles = event === "PostToolUse" && typeof value === "string" &&
    /write|edit/i.test(value);
  return writesFiles ||
    selection.matched.some((r) => writesProject(request.texts.get(r.id) ?? ""));
}

const WRITES = [
  /sed\s+(-[a-zA-Z]*i|--in-place)/,
  /\btee\b/,
  /\b(mkdir|touch|mv|cp|truncate)\s/,
  /\bgit\s+(add|commit|checkout|reset|stash|restore|apply|rm)\b/,
  /--write\b|\bprettier\b|\bblack\b|\bruff\s+format\b|--fix\b|\bgofmt\s+-w\b|\bfmt\b/,
];

/**
 * Writes whose code holds quotes (a file mode, a quoted redirection target), looked for before
 * quotes are emptied: a redirection into a file (not a descriptor, /dev/ or $HOME) and Python
 * or JavaScript file writes (not stdout's).
 */
const QUOTED_WRITES = [
  /(^|[^0-9&>=-])>>?\s*(?!&|\/dev\/|"?\$\{?HOME|"?~)["'$\w./]/m,
  /open\([^)]*,\s*['"][wax]|write_text\(|writeFile|(?<!std(out|err))\.write\(/,
];

function writesProject(text: string): boolean {
  const code = text.split("\n").filter((line) => !/^\s*#/.test(line)).join("\n");
  // A message such as "git reset --hard throws away work" writes nothing: quotes are emptied.
  const unquoted = code.replace(/"(?:[^"\\\n]|\\.)*"|'[^'\n]*'/g, '""');
  return QUOTED_WRITES.some((pattern) => pattern.test(code)) ||
    WRITES.some((pattern) => pattern.test(unquoted));
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
