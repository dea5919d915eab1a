/**
 * Temp projects for the runner tests: real files and executable hook scripts, a fake "real"
 * HOME beside the project (so tests can prove the hooks never touched it), an outer environment
 * holding things hooks must not see, a `CaseInput` builder, and scripts for session cases.
 */
import { compatProfile } from "../../src/profile/compat_profile.ts";
import type { CaseInput } from "../../src/testing/runner/case_input.ts";
import type { CaseResult } from "../../src/testing/scenarios/case_result.ts";
import type { Placement } from "../../src/testing/runner/hermetic_env.ts";
import { runEventCase } from "../../src/testing/runner/event_case_runner.ts";
import {
  EventCase,
  type ScenarioCase,
  SessionCase,
} from "../../src/testing/scenarios/scenario_schema.ts";
import { runSessionCase } from "../../src/testing/runner/session_case_runner.ts";

export interface TempProject {
  /** The project directory (real path). */
  readonly dir: string;
  /** A directory standing for the user's real HOME in the outer environment. */
  readonly realHome: string;
  /** The outer environment: PATH, the fake real HOME, a secret, a zone and a locale. */
  readonly outerEnv: (name: string) => string | undefined;
}

export const OUTER_SECRET = "outer-secret-value";

/**
 * `files` are written under the project; `*.sh` get `#!/bin/sh` unless they start with `#!`, and
 * are made executable. `.claude/settings.json` may be given as an object.
 */
export async function withTempProject<T>(
  files: Readonly<Record<string, string | object>>,
  fn: (project: TempProject) => Promise<T>,
): Promise<T> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "runner_test_" }));
  try {
    const dir = `${root}/project`;
    const realHome = `${root}/real_home`;
    await Deno.mkdir(dir);
    await Deno.mkdir(realHome);
    for (const [path, content] of Object.entries(files)) {
      const full = `${dir}/${path}`;
      await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
      let text = typeof content === "string" ? content : JSON.stringify(content, null, 2);
      if (path.endsWith(".sh") && !text.startsWith("#!")) text = `#!/bin/sh\n${text}`;
      await Deno.writeTextFile(full, text);
      if (path.endsWith(".sh")) await Deno.chmod(full, 0o755);
    }
    const outer: Record<string, string> = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: realHome,
      USER: "tester",
      OUTER_SECRET,
      TZ: "America/New_York",
      LANG: "fr_FR.UTF-8",
      TMPDIR: `${root}/outer_tmp`,
      XDG_STATE_HOME: `${root}/outer_state`,
      // Where runs make their scratch places: the user's cache, kept apart from "the real HOME"
      // here so that tests can say that HOME itself is never written.
      XDG_CACHE_HOME: `${root}/outer_cache`,
    };
    return await fn({ dir, realHome, outerEnv: (name) => outer[name] });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** Hooks settings: `{"hooks": {Event: [{matcher?, hooks: [{type: "command", command}]}]}}`. */
export function hooksSettings(
  hooks: Readonly<Record<string, readonly { matcher?: string; hooks: readonly object[] }[]>>,
): Record<string, unknown> {
  return { hooks };
}

/** One command hook, optionally with a timeout in seconds. */
export function command(line: string, extra: Record<string, unknown> = {}): object {
  return { type: "command", command: line, ...extra };
}

export function caseInput<C extends ScenarioCase>(
  project: TempProject,
  spec: C,
  extra: Partial<Omit<CaseInput<C>, "spec">> & { readonly placement?: Placement } = {},
): CaseInput<C> {
  return {
    spec,
    location: {
      file: `${project.dir}/.claude/hooks-tests/t.test.jsonc`,
      line: 3,
      pointer: "/cases/0",
    },
    placement: {},
    projectDir: project.dir,
    profile: compatProfile(),
    outerEnv: project.outerEnv,
    index: 1,
    explain: false,
    killGraceMs: 100,
    ...extra,
  };
}

/** Runs `spec` (validated as an event case) against `project`. */
export async function runEvent(
  project: TempProject,
  spec: unknown,
  extra: Partial<Omit<CaseInput<EventCase>, "spec">> = {},
): Promise<CaseResult> {
  return await runEventCase(caseInput(project, EventCase.parse(spec), extra));
}

/** A result's failures as `[path, message]` pairs: what a test compares when the rest is noise. */
export function failureSummary(result: CaseResult): [string, string][] {
  return result.failures.map((f) => [f.path, f.message]);
}

/** Runs `spec` (validated as a session case) against `project`. */
export async function runSession(
  project: TempProject,
  spec: unknown,
  extra: Partial<Omit<CaseInput<SessionCase>, "spec">> = {},
): Promise<CaseResult> {
  return await runSessionCase(caseInput(project, SessionCase.parse(spec), extra));
}

/** A model that calls `shell` once per turn, with each of `lines` in turn, then says `text`. */
export function shellModel(lines: readonly string[], text = "ok") {
  const calls = lines.map((line) => ({ toolCalls: [{ name: "shell", input: { command: line } }] }));
  return { turns: [...calls, { text }] };
}

/** Every entry of a directory tree, relative, sorted: to prove a run left nothing behind. */
export async function treeOf(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (path: string, prefix: string) => {
    for await (const entry of Deno.readDir(path)) {
      const rel = `${prefix}${entry.name}`;
      out.push(rel);
      if (entry.isDirectory) await walk(`${path}/${entry.name}`, `${rel}/`);
    }
  };
  await walk(dir, "");
  return out.sort();
}
