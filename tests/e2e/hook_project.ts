/**
 * Projects with real Claude Code hook settings for end-to-end runs of the agent: one directory
 * per session cwd (its own `.claude/settings.json` and `settings.local.json`, its own hook
 * script and log), a hermetic `$HOME/.claude/settings.json`, and readers for what the hooks
 * received (the log) and what the model received (the session transcript).
 *
 * Every hook is the same tiny script, `hooks/hook.sh TAG`: it appends the payload it read on
 * stdin, with where and how it ran, as one JSON line to `$CLAUDE_PROJECT_DIR/hook_log.jsonl`,
 * then answers as the files `hooks/TAG.*` beside it say (see `HookReply`).
 */
import { PARAGRAPH_BREAK } from "../../src/acp/session/message_paragraphs.ts";
import type { AcpHarness, JsonObject } from "../helpers/acp_harness.ts";
import { isObject } from "../helpers/acp_harness.ts";
import { type E2eProject, withE2eProject } from "./e2e_project.ts";

/** What one tagged hook does after logging its payload. */
export interface HookReply {
  /** Answer only when the payload contains this text (else exit 0 silently). */
  readonly when?: string;
  /** Seconds to sleep first (a unique value such as "29.123456" makes it findable in `ps`). */
  readonly sleep?: string;
  /** Stdout: a string as is, anything else as JSON. */
  readonly out?: unknown;
  readonly err?: string;
  readonly code?: number;
  /** Die of SIGSEGV after writing "about to crash" to stderr. */
  readonly crash?: boolean;
}

export const HOOK_SCRIPT = `#!/bin/sh
# Logs the payload from stdin as one JSON line, then answers as the files $0/../TAG.* say.
# Builtins only on the common path: hooks run often, and forks are slow on a loaded machine.
tag=$1
dir=\${0%/*}
IFS= read -r payload
tp=\${payload#*'"transcript_path":"'}
tp=\${tp%%'"'*}
exists=false
[ -f "$tp" ] && exists=true
printf '{"tag":"%s","pid":%s,"pwd":"%s","projectDir":"%s","envSessionId":"%s","transcriptExists":%s,"payload":%s}\\n' \\
  "$tag" "$$" "$PWD" "$CLAUDE_PROJECT_DIR" "$CLAUDE_CODE_SESSION_ID" "$exists" "$payload" \\
  >> "$CLAUDE_PROJECT_DIR/hook_log.jsonl"
if [ -f "$dir/$tag.when" ]; then
  IFS= read -r when < "$dir/$tag.when"
  case "$payload" in
    *"$when"*) ;;
    *) exit 0 ;;
  esac
fi
if [ -f "$dir/$tag.sleep" ]; then
  read -r seconds < "$dir/$tag.sleep"
  sleep "$seconds"
fi
[ -f "$dir/$tag.out" ] && cat "$dir/$tag.out"
[ -f "$dir/$tag.err" ] && cat "$dir/$tag.err" >&2
if [ -f "$dir/$tag.crash" ]; then
  ulimit -c 0 2>/dev/null
  echo "about to crash" >&2
  kill -SEGV $$
fi
if [ -f "$dir/$tag.code" ]; then
  read -r code < "$dir/$tag.code"
  exit "$code"
fi
exit 0
`;

/** Where a hook script lives: the session cwd (`$CLAUDE_PROJECT_DIR`) or `$HOME`. */
export type HookBase = "$CLAUDE_PROJECT_DIR" | "$HOME";

/** The command string of hook `tag` (`<cmd>` in the messages hooks produce). */
export function hookCommand(tag: string, base: HookBase = "$CLAUDE_PROJECT_DIR"): string {
  return `"${base}/hooks/hook.sh" ${tag}`;
}

/** A command handler for hook `tag`, with extra handler fields (`timeout`, `onFailure`, ...). */
export function hook(
  tag: string,
  extra: Record<string, unknown> = {},
  base: HookBase = "$CLAUDE_PROJECT_DIR",
): JsonObject {
  return { type: "command", command: hookCommand(tag, base), ...extra };
}

/** One matcher group; `matcher` undefined leaves the key out. */
export function group(matcher: string | undefined, ...hooks: unknown[]): JsonObject {
  return matcher === undefined ? { hooks } : { matcher, hooks };
}

export interface HookDir {
  /** `.claude/settings.json`. */
  readonly settings?: unknown;
  /** `.claude/settings.local.json`. */
  readonly local?: unknown;
  /** The replies of the tags this directory's hooks use. */
  readonly replies?: Readonly<Record<string, HookReply>>;
  /** Other files, relative to the directory. */
  readonly files?: Readonly<Record<string, string>>;
}

/** Writes a session cwd or a HOME: settings, `hooks/hook.sh`, its reply files, other files. */
export async function writeHookDir(dir: string, spec: HookDir): Promise<void> {
  await Deno.mkdir(`${dir}/.claude`, { recursive: true });
  await Deno.mkdir(`${dir}/hooks`, { recursive: true });
  if (spec.settings !== undefined) {
    await Deno.writeTextFile(`${dir}/.claude/settings.json`, JSON.stringify(spec.settings));
  }
  if (spec.local !== undefined) {
    await Deno.writeTextFile(`${dir}/.claude/settings.local.json`, JSON.stringify(spec.local));
  }
  await Deno.writeTextFile(`${dir}/hooks/hook.sh`, HOOK_SCRIPT);
  await Deno.chmod(`${dir}/hooks/hook.sh`, 0o755);
  for (const [tag, reply] of Object.entries(spec.replies ?? {})) {
    const put = (ext: string, text: string) =>
      Deno.writeTextFile(`${dir}/hooks/${tag}.${ext}`, text);
    if (reply.when !== undefined) await put("when", reply.when);
    if (reply.sleep !== undefined) await put("sleep", reply.sleep);
    if (reply.out !== undefined) {
      await put("out", typeof reply.out === "string" ? reply.out : JSON.stringify(reply.out));
    }
    if (reply.err !== undefined) await put("err", reply.err);
    if (reply.code !== undefined) await put("code", String(reply.code));
    if (reply.crash) await put("crash", "");
  }
  for (const [path, content] of Object.entries(spec.files ?? {})) {
    const file = `${dir}/${path}`;
    await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(file, content);
  }
}

/** One model call of a scripted model (`src/model/scripted/scripted_model.ts`). */
export interface ScriptedTurn {
  readonly thought?: string;
  readonly text?: string;
  readonly toolCalls?: readonly { readonly name: string; readonly input: unknown }[];
}

export interface HookProject extends E2eProject {
  /** A session cwd `<project>/<name>` with its own settings and hooks; returns its path. */
  sessionDir(name: string, spec: HookDir): Promise<string>;
  /** HOME's settings and hooks (HOME hooks log into the session cwd too). */
  writeHome(spec: HookDir): Promise<void>;
  /** Writes a scripted model into the project and returns its `--model` value. */
  scriptedModel(turns: readonly ScriptedTurn[], name?: string): Promise<string>;
  /** `session/new` in `cwd`; returns the session id. */
  newSessionIn(agent: AcpHarness, cwd: string): Promise<string>;
}

export function withHookProject(fn: (project: HookProject) => Promise<void>): Promise<void> {
  return withE2eProject({}, (p) =>
    fn({
      ...p,
      async sessionDir(name, spec) {
        const dir = `${p.cwd}/${name}`;
        await writeHookDir(dir, spec);
        return dir;
      },
      async writeHome(spec) {
        await writeHookDir(p.home, spec);
      },
      async scriptedModel(turns, name = "model.json") {
        await Deno.writeTextFile(`${p.cwd}/${name}`, JSON.stringify({ turns }));
        return `scripted:${name}`;
      },
      async newSessionIn(agent, cwd) {
        const created = await agent.call("session/new", { cwd, mcpServers: [] });
        return (created as { sessionId: string }).sessionId;
      },
    }));
}

/** Turns the session option "stop hooks continue the turn" on (hooks.md §12.2). */
export async function continueOnStop(agent: AcpHarness, sessionId: string): Promise<void> {
  await agent.call("session/set_config_option", {
    sessionId,
    configId: "stop_hooks_continue",
    type: "boolean",
    value: true,
  });
}

/** One hook run, as `hook.sh` logged it. */
export interface LoggedHook {
  readonly tag: string;
  readonly pid: number;
  /** The hook's working directory. */
  readonly pwd: string;
  /** `$CLAUDE_PROJECT_DIR` as the hook saw it. */
  readonly projectDir: string;
  /** `$CLAUDE_CODE_SESSION_ID` as the hook saw it. */
  readonly envSessionId: string;
  /** Whether the payload's `transcript_path` was a file when the hook ran. */
  readonly transcriptExists: boolean;
  readonly payload: JsonObject;
}

/** Every hook run logged in session cwd `dir` so far, in order ([] when none ran). */
export async function readHookLog(dir: string): Promise<LoggedHook[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${dir}/hook_log.jsonl`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}

/** The runs of one tag. */
export async function runsOf(dir: string, tag: string): Promise<LoggedHook[]> {
  return (await readHookLog(dir)).filter((run) => run.tag === tag);
}

/** The session's transcript records (`$HOME/.local/state/llama-agent/sessions/<id>/raw.jsonl`). */
export async function readTranscript(home: string, sessionId: string): Promise<JsonObject[]> {
  const text = await Deno.readTextFile(
    `${home}/.local/state/llama-agent/sessions/${sessionId}/raw.jsonl`,
  );
  return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}

/** What the model read, from the transcript: prompts as received, tool results, hook feedback. */
export function modelVisibleTexts(records: readonly JsonObject[]): string[] {
  return records.flatMap((record) => {
    if (record.type === "prompt" && record.refused !== true) return [String(record.text)];
    if (record.type === "tool_call") return [String(record.result)];
    if (record.type === "hook_feedback") return [String(record.text)];
    return [];
  });
}

/** The transcript's `tool_call` record of `toolCallId`. */
export function toolCallRecord(records: readonly JsonObject[], toolCallId: string): JsonObject {
  const record = records.find((r) => r.type === "tool_call" && r.toolCallId === toolCallId);
  if (!record) throw new Error(`No tool_call record for "${toolCallId}" in the transcript`);
  return record;
}

export const NOTICE_KEY = "llama-agent/notice";

/** The fields every payload of a prompt turn starts with, in Claude Code's order (hooks.md §4). */
export const TURN_PAYLOAD_KEYS = [
  "session_id",
  "transcript_path",
  "cwd",
  "prompt_id",
  "permission_mode",
  "hook_event_name",
] as const;

export { POST_FAILURE_KEYS } from "../helpers/payload_keys.ts";

function isNotice(update: JsonObject): boolean {
  return update.sessionUpdate === "agent_message_chunk" && isObject(update._meta) &&
    update._meta[NOTICE_KEY] === true;
}

function chunkText(update: JsonObject): string {
  return isObject(update.content) && typeof update.content.text === "string"
    ? update.content.text
    : "";
}

/**
 * The hook notices the client was shown (agent messages marked as notices), as they were said:
 * without the blank line a notice after other agent text begins with (message_paragraphs.ts).
 */
export function noticesOf(agent: AcpHarness, sessionId: string): string[] {
  return agent.sessionUpdates(sessionId).filter(isNotice).map((u) =>
    chunkText(u).replace(PARAGRAPH_START, "")
  );
}

const PARAGRAPH_START = new RegExp(`^${PARAGRAPH_BREAK}`);

/** Model messages as a client shows them one after another: a paragraph each. */
export function paragraphs(...messages: readonly string[]): string {
  return messages.join(PARAGRAPH_BREAK);
}

/** The model's own message text (notices left out). */
export function modelTextOf(agent: AcpHarness, sessionId: string): string {
  return agent.sessionUpdates(sessionId)
    .filter((u) => u.sessionUpdate === "agent_message_chunk" && !isNotice(u))
    .map(chunkText)
    .join("");
}

/** The final `tool_call_update` (with a status of completed or failed) of a call. */
export function finalUpdateOf(
  agent: AcpHarness,
  sessionId: string,
  toolCallId: string,
): JsonObject {
  const update = agent.toolCallUpdates(sessionId).findLast((u) =>
    u.toolCallId === toolCallId && (u.status === "completed" || u.status === "failed")
  );
  if (!update) throw new Error(`No final tool_call_update for "${toolCallId}"`);
  return update;
}

/** Whether a file exists. */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** A number unique to this run, for `sleep` durations found again with `ps`. */
export function uniqueSeconds(whole: number): string {
  return `${whole}.${Math.floor(Math.random() * 1e6)}`;
}

/** The response's `_meta` of a `session/prompt` result. */
export function metaOf(result: unknown): JsonObject {
  return isObject(result) && isObject(result._meta) ? result._meta : {};
}
