/**
 * The whole engine against real files and real processes: a temp HOME with the user settings
 * file, a project (the session cwd) with the project and local files and executable hook
 * scripts, and `fire()`, which loads, selects and fires exactly as a session does.
 */
import type { FiredEventName } from "../../src/hooks/event_table.ts";
import {
  createHandlerRunner,
  type HandlerRunnerOptions,
} from "../../src/hooks/handlers/handler_dispatch.ts";
import { fireHooks, type HookFiring } from "../../src/hooks/hook_engine.ts";
import type { HookPayload } from "../../src/hooks/handler_runner.ts";
import { completePayload } from "../../src/hooks/payload_defaults.ts";
import { type Selection, selectRegistrations } from "../../src/hooks/registry.ts";
import { loadSessionHooks, type SessionHooks } from "../../src/hooks/session_hooks.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";

export const SESSION_ID = "sess-engine-1";
export const PROMPT_ID = "prompt-engine-1";

export interface ProjectFiles {
  /** Settings objects (written as JSON) or raw text. */
  readonly user?: unknown;
  readonly project?: unknown;
  readonly local?: unknown;
  /** Bodies of `<cwd>/hooks/<name>`, made executable; `#!/bin/sh` is prepended. */
  readonly scripts?: Readonly<Record<string, string>>;
}

export interface Project {
  readonly home: string;
  /** The session cwd (a real path); scripts are at `./hooks/<name>` from here. */
  readonly cwd: string;
  /** `<cwd>/out`: where scripts write what they saw. */
  readonly out: string;
  readonly userFile: string;
  readonly projectFile: string;
  readonly localFile: string;
}

export async function withProject<T>(
  files: ProjectFiles,
  fn: (project: Project) => Promise<T>,
): Promise<T> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "engine_integration_" }));
  try {
    const home = `${root}/home`;
    const cwd = `${root}/project`;
    const project: Project = {
      home,
      cwd,
      out: `${cwd}/out`,
      userFile: `${home}/.claude/settings.json`,
      projectFile: `${cwd}/.claude/settings.json`,
      localFile: `${cwd}/.claude/settings.local.json`,
    };
    await Deno.mkdir(`${home}/.claude`, { recursive: true });
    await Deno.mkdir(`${cwd}/.claude`, { recursive: true });
    await Deno.mkdir(`${cwd}/hooks`);
    await Deno.mkdir(project.out);
    await writeSettings(project.userFile, files.user);
    await writeSettings(project.projectFile, files.project);
    await writeSettings(project.localFile, files.local);
    for (const [name, body] of Object.entries(files.scripts ?? {})) {
      const path = `${cwd}/hooks/${name}`;
      await Deno.writeTextFile(path, `#!/bin/sh\n${body}\n`);
      await Deno.chmod(path, 0o755);
    }
    return await fn(project);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

async function writeSettings(path: string, settings: unknown) {
  if (settings === undefined) return;
  const text = typeof settings === "string" ? settings : JSON.stringify(settings, null, 2);
  await Deno.writeTextFile(path, text);
}

/** `{hooks: {[event]: groups}}`, plus any top-level keys. */
export function settings(
  hooks: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { ...extra, hooks };
}

/** One matcher group of command handlers. */
export function group(matcher: string | undefined, ...handlers: unknown[]) {
  return {
    ...(matcher === undefined ? {} : { matcher }),
    hooks: handlers.map((h) => typeof h === "string" ? { type: "command", command: h } : h),
  };
}

export interface Fired {
  readonly hooks: SessionHooks;
  readonly selection: Selection;
  readonly firing: HookFiring;
  readonly payload: HookPayload;
}

/** The hooks' environment: only what the scripts need, so runs do not depend on the host. */
export function baseEnv(project: Project): Record<string, string> {
  return { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: project.home, LANG: "C.UTF-8" };
}

/** Load → complete the payload → select → fire, as a session does for one event. */
export async function fire(
  project: Project,
  event: FiredEventName,
  fields: Record<string, unknown>,
  runner: HandlerRunnerOptions = {},
): Promise<Fired> {
  const hooks = await loadSessionHooks(project.cwd, project.home);
  const completed = completePayload(event, fields, {
    sessionId: SESSION_ID,
    transcriptPath: `${project.home}/.local/state/llama-agent/sessions/${SESSION_ID}/raw.jsonl`,
    cwd: project.cwd,
    promptId: PROMPT_ID,
    permissionMode: "acceptEdits",
  });
  if (!completed.ok) throw new Error(completed.error);
  const selection = selectRegistrations(hooks.registry, event, completed.matcherValue, {
    profile: compatProfile(),
    projectDir: project.cwd,
    toolInput: completed.payload["tool_input"],
  });
  const firing = await notHanging(
    fireHooks({
      event,
      matcherValue: completed.matcherValue,
      payload: completed.payload,
      registrations: selection.matched,
      runHandler: createHandlerRunner({ baseEnv: baseEnv(project), ...runner }),
      context: { event, cwd: project.cwd, sessionId: SESSION_ID },
    }),
  );
  return { hooks, selection, firing, payload: completed.payload };
}

/**
 * Rejects when `promise` has not settled after a generous bound: this proves "does not hang",
 * never "is fast".
 */
export async function notHanging<T>(promise: Promise<T>, seconds = 60): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Still running after ${seconds} s`)), seconds * 1000);
  });
  try {
    return await Promise.race([promise, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** The registration ids of the runs, in the order the firing reports them. */
export function ranIds(firing: HookFiring): string[] {
  return firing.runs.map((run) => run.registration.id);
}

export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
