/**
 * The shape of a `hooks test` scenario file (JSONC): cases run against the repository's real
 * merged settings (or an override), each an **event** case (one event, a partial payload, the
 * combined outcome) or a **session** case (the real agent, a scripted client and model, what
 * happened end to end). This schema is the single source: types, validation, and the JSON
 * Schema editors read (`schemas/hooks-test.schema.json`) all come from it.
 *
 * A session case never touches the project: it runs in a temporary copy with a HOME of its own,
 * and its shell commands are answered from `session.shell` unless it opts in to `execute`. The
 * plugin directories a scenario names are copied into the case's place too.
 */
import { z } from "zod";
import { EVENTS_FIRED_SOMEWHERE, PROFILE_EVENTS } from "../../hooks/event_table.ts";
import { PERMISSION_MODE_IDS } from "../../agent/permissions/permission_policy.ts";
import { ModelScript } from "../../model/scripted/scripted_model.ts";
import { COMPAT_PROFILE_IDS } from "../../profile/compat_profile.ts";

/**
 * A string expected exactly (where the field says "found in", contained), `{"matches":
 * "<regex>"}` (unanchored, JavaScript syntax), or `{"contains": "<text>"}` (found anywhere in it).
 */
export const TextExpectation = z.union([
  z.string(),
  z.strictObject({
    matches: z.string().refine(isRegExp, {
      message: "must be a valid JavaScript regular expression",
    }).describe("An unanchored JavaScript regular expression"),
  }),
  z.strictObject({
    // An empty text would be found in any value.
    contains: z.string().min(1, { error: "must not be empty" })
      .describe("Text found anywhere in the value"),
  }),
]).describe('The exact text, {"matches": "<regex>"} or {"contains": "<text>"}');

function isRegExp(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

/** An `expect` with nothing in it would pass whatever the hooks do. */
const ASSERTS_SOMETHING = {
  message: "must assert something: give at least one expectation",
};
const nonEmpty = (value: object) => Object.keys(value).length > 0;

export type TextExpectation = z.infer<typeof TextExpectation>;

/**
 * A JSON value expected as it is (objects: the keys given), where any `{"matches": "<regex>"}`
 * or `{"contains": "<text>"}` (an object with that one key) is tested against a string instead:
 * `_meta` values.
 */
export const JsonExpectation = z.unknown().refine(regexesCompile, {
  message: 'every {"matches": "<regex>"} must hold a valid JavaScript regular expression',
}).describe(
  'A JSON value; any {"matches": "<regex>"} or {"contains": "<text>"} in it is tested against ' +
    "a string",
);

/** A text matcher written into a JSON expectation: `{"matches"}` or `{"contains"}`. */
export type TextMatcher = Exclude<TextExpectation, string>;

/**
 * The `{"matches": "<regex>"}` or `{"contains": "<text>"}` of a JSON expectation (an object with
 * that one string key), or null for a value expected as it is.
 */
export function textMatcherOf(value: unknown): TextMatcher | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const entries = Object.entries(value);
  const [key, text] = entries[0] ?? [];
  if (entries.length !== 1 || typeof text !== "string") return null;
  if (key === "matches") return { matches: text };
  if (key === "contains") return { contains: text };
  return null;
}

function regexesCompile(value: unknown): boolean {
  const matcher = textMatcherOf(value);
  if (matcher !== null) return "contains" in matcher || isRegExp(matcher.matches);
  if (Array.isArray(value)) return value.every(regexesCompile);
  if (typeof value === "object" && value !== null) {
    return Object.values(value).every(regexesCompile);
  }
  return true;
}

/** A hook registration, named by a substring of its command (or URL / prompt) or its id. */
export const HookRef = z.string().describe(
  "A substring of the hook's command, URL or prompt, or its registration id",
);

const Env = z.record(z.string(), z.string()).describe(
  "Variables added to the hermetic environment the hooks see",
);

/** Settings used instead of the repository's chain: a settings object, or a path to one. */
const SettingsOverride = z.union([
  z.string().describe("A settings file, relative to the scenario file"),
  z.looseObject({ hooks: z.unknown().optional(), disableAllHooks: z.boolean().optional() }),
]).describe("Settings to use instead of the repository's merged chain");

const Placement = {
  env: Env.optional(),
  home: z.string().optional().describe(
    "A fixture directory (relative to the scenario file) copied as HOME; default: an empty HOME",
  ),
  isolate: z.boolean().optional().describe(
    "Event cases: run in a temporary copy of the project, so hooks that write files leave it " +
      "untouched. Session cases always run in one",
  ),
  settings: SettingsOverride.optional(),
  compat: z.enum(COMPAT_PROFILE_IDS).optional().describe(
    'How the agent presents itself to the hooks: "llama" (its own tools: shell, fs_read, ...) ' +
      'or "claude" (Claude Code\'s: Bash, Read, ...); default: the --compat flag, else decided ' +
      "from the case's hooks: claude when they name Claude Code's tools and none of llama-agent's",
  ),
  pluginDirs: z.array(z.string().min(1, { error: "must not be empty" })).optional().describe(
    "Claude Code plugin directories (relative to the scenario file) whose hooks load beside the " +
      "settings, as with --plugin-dir; a case's list replaces the file's. Each is copied into " +
      "the case's place, so hooks never write the real one, and CLAUDE_PLUGIN_DATA lies in the " +
      'case\'s HOME. Plugins load only with the claude profile ("compat": "claude")',
  ),
};

export const EventExpectation = z.strictObject({
  decision: z.enum(["none", "allow", "ask", "defer", "deny", "block", "stop"]).optional().describe(
    "The combined verdict: deny (PreToolUse) and block (other events) are the same thing",
  ),
  reason: TextExpectation.optional().describe("The block or deny reason, all reasons joined"),
  context: TextExpectation.optional().describe(
    "What the hooks add to the model's context, as a session adds it: the plain stdout of each " +
      "hook that exited 0 (SessionStart and UserPromptSubmit; PreCompact: the summary's " +
      "instructions), then every additionalContext, joined with \\n",
  ),
  updatedInput: z.record(z.string(), z.unknown()).nullable().optional(),
  systemMessage: TextExpectation.optional().describe("systemMessages, joined with \\n"),
  stopReason: TextExpectation.optional().describe("The stopReason of a continue:false"),
  matched: z.array(HookRef).optional().describe("Exactly these hooks ran, in chain order"),
  notMatched: z.array(HookRef).optional().describe("These hooks did not run"),
  exitCodes: z.array(z.number().int()).optional().describe("Exit codes of the hooks that ran"),
  timedOut: z.array(HookRef).optional().describe("These hooks timed out"),
  errors: z.number().int().nonnegative().optional().describe(
    "How many hooks failed without blocking",
  ),
  notices: z.array(TextExpectation).optional().describe(
    "What the user is shown, in order, as a session shows it: systemMessages, a continue:false, " +
      "non-blocking failures, a UserPromptSubmit block; for PreCompact and PostCompact one line " +
      "per hook that printed or failed, then a PreCompact block",
  ),
  env: z.record(z.string(), TextExpectation.nullable()).optional().describe(
    "Variables every command hook that ran was given (CLAUDE_PROJECT_DIR, ...): the value, or " +
      "null for not set",
  ),
  envFile: z.record(z.string(), TextExpectation.nullable()).optional().describe(
    "SessionStart: what the hooks wrote to their CLAUDE_ENV_FILEs, as later shell calls get it " +
      "($NAME expanded over the case's environment): the value, or null for not set",
  ),
}).refine(nonEmpty, ASSERTS_SOMETHING);
export type EventExpectation = z.infer<typeof EventExpectation>;

export const EventCase = z.strictObject({
  name: z.string().min(1),
  event: z.enum(EVENTS_FIRED_SOMEWHERE as [string, ...string[]]).describe(
    `The event to fire; ${PROFILE_EVENTS.join(", ")} fire only with "compat": "claude"`,
  ),
  input: z.record(z.string(), z.unknown()).optional().describe(
    "Payload fields; the rest (session_id, cwd, transcript_path, permission_mode...) is filled in",
  ),
  ...Placement,
  expect: EventExpectation,
}).refine((c) => c.expect.envFile === undefined || c.event === "SessionStart", {
  path: ["expect", "envFile"],
  message: 'only SessionStart hooks get a CLAUDE_ENV_FILE: fire SessionStart or remove "envFile"',
});
export type EventCase = z.infer<typeof EventCase>;

const PermissionAnswer = z.enum([
  "allow_once",
  "allow_always",
  "reject_once",
  "reject_always",
  "cancelled",
]);

export const ScriptedClient = z.strictObject({
  fs: z.boolean().optional().describe(
    "Advertise fs/read_text_file and fs/write_text_file (served from disk, confined like the " +
      "agent's own file tools)",
  ),
  terminal: z.boolean().optional().describe(
    'Advertise terminal/*: shell commands go through the client (answered, or run with "execute")',
  ),
  permissions: z.union([PermissionAnswer, z.array(PermissionAnswer)]).optional().describe(
    "The answer to every permission request, or the answers in order (then the last repeats)",
  ),
});

/** What the scripted terminal answers to one shell command, instead of running it. */
export const ShellAnswer = z.strictObject({
  output: z.string().optional().describe(
    "What the command printed (stdout and stderr as one text); default: nothing",
  ),
  exitCode: z.number().int().min(0).max(255).optional().describe(
    "Its exit code; default 0. A non-zero code reaches the model and the hooks as a real one would",
  ),
});
export type ShellAnswer = z.infer<typeof ShellAnswer>;

export const SessionScript = z.strictObject({
  model: ModelScript.describe("The scripted model: one entry per model call"),
  prompts: z.array(z.string()).min(1).describe("The prompts, one session/prompt each"),
  client: ScriptedClient.optional(),
  mode: z.enum(PERMISSION_MODE_IDS).optional(),
  stopHooksContinue: z.boolean().optional(),
  evaluator: ModelScript.optional().describe("The scripted answers of prompt and agent hooks"),
  shell: z.array(ShellAnswer).optional().describe(
    "The scripted terminal's answers, one per shell command that gets past hooks and " +
      "permissions, in order; commands past the last answer get no output and exit code 0. " +
      "No command is executed",
  ),
  execute: z.boolean().optional().describe(
    "Run shell commands for real instead of answering them: in the case's copy of the project, " +
      "with its HOME. A command can still reach anything you can (an absolute path)",
  ),
}).refine((script) => script.execute !== true || script.shell === undefined, {
  path: ["shell"],
  message: 'Answers are never used when "execute" is true (the commands run): remove one of them',
});
export type SessionScript = z.infer<typeof SessionScript>;

export const FiredHookExpectation = z.strictObject({
  event: z.enum(EVENTS_FIRED_SOMEWHERE as [string, ...string[]]),
  matcher: z.string().nullable().optional().describe("The value matchers were tested against"),
  decision: z.enum(["none", "allow", "ask", "defer", "deny", "block", "stop"]).optional(),
});

export const ToolExpectation = z.strictObject({
  name: z.string().describe("The tool name as the model emitted it"),
  dispatched: z.boolean().optional().describe(
    "It got past hooks and permissions to its tool (a shell command is then answered, or run " +
      'with "execute")',
  ),
  input: z.record(z.string(), z.unknown()).optional().describe(
    "The input it ran (or would have run) with",
  ),
  status: z.enum(["completed", "failed"]).optional(),
});

/**
 * A path in the case's copy of the project. An absolute one would read the real file, which the
 * session never touched: `null` there would pass even when the guard let the write through.
 */
const CopyPath = z.string().regex(/^(?!\/)/, {
  error: "must be a path relative to the case's copy of the project: an absolute one names a " +
    "file the case never touched",
});

export const SessionExpectation = z.strictObject({
  hooks: z.array(FiredHookExpectation).optional().describe(
    "The firings that ran at least one hook, in order (firings with no matching hook are left out)",
  ),
  tools: z.array(ToolExpectation).optional().describe("Every tool call, in order"),
  modelSaw: z.array(TextExpectation).optional().describe(
    "Texts found in what the model received: prompts with injected context, tool results",
  ),
  modelNeverSaw: z.array(TextExpectation).optional(),
  evaluatorSaw: z.array(TextExpectation).optional().describe(
    "Texts found in what prompt and agent hooks' evaluator received (session.evaluator): the " +
      "prompt with $ARGUMENTS filled in, an agent hook's tool results",
  ),
  evaluatorNeverSaw: z.array(TextExpectation).optional(),
  files: z.record(CopyPath, TextExpectation.nullable()).optional().describe(
    "Files of the case's copy of the project after the session (relative paths): the exact " +
      'content, {"matches": "<regex>"}, {"contains": "<text>"}, or null for absent',
  ),
  stopReason: z.union([
    z.enum(["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]),
    z.array(z.enum(["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"])),
  ]).optional().describe("The last prompt's stop reason, or every prompt's in order"),
  meta: z.record(z.string(), JsonExpectation).optional().describe(
    "Keys of the last prompt response's _meta: each value as it is (objects: the keys given), " +
      'or {"matches": "<regex>"} for a string',
  ),
  notices: z.array(TextExpectation).optional().describe("What hooks showed the user, in order"),
  agentText: TextExpectation.optional().describe(
    "The agent's message text (notices excluded), all prompts",
  ),
}).refine(nonEmpty, ASSERTS_SOMETHING);
export type SessionExpectation = z.infer<typeof SessionExpectation>;

export const SessionCase = z.strictObject({
  name: z.string().min(1),
  session: SessionScript,
  ...Placement,
  // Whatever the model of a case does (a guard may be broken), it must not reach the project.
  isolate: z.literal(true, {
    error: 'a session case always runs in a temporary copy of the project: remove "isolate"',
  }).optional().describe("Session cases always run in a temporary copy of the project"),
  expect: SessionExpectation,
});
export type SessionCase = z.infer<typeof SessionCase>;

export const ScenarioCase = z.union([EventCase, SessionCase]);
export type ScenarioCase = z.infer<typeof ScenarioCase>;

export const ScenarioFile = z.strictObject({
  $schema: z.string().optional(),
  description: z.string().optional(),
  ...Placement,
  cases: z.array(ScenarioCase).min(1),
});
export type ScenarioFile = z.infer<typeof ScenarioFile>;

export function isEventCase(c: ScenarioCase): c is EventCase {
  return "event" in c;
}
