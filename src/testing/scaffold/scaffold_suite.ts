/**
 * `hooks init`'s work: a starter scenario file that passes at once, from the hooks of a project.
 *
 * 1. Read the hooks as `hooks test` cases will see them: the project's settings chain with an
 *    empty HOME (so no user settings and no installed plugins), under the chosen profile.
 * 2. Plan the cases (scaffold_plan.ts).
 * 3. Fire every case twice through `runScenarios` with probe expectations (observed_event.ts,
 *    observed_session.ts): in hermetic places, with a copy of the project where a hook may
 *    write, never the real HOME. Keep what both firings agree on (scaffold_expect.ts).
 * 4. Check the file as written with `runScenarios`; a case that does not pass is taken out, with
 *    a comment saying why, and the rest checked again.
 *
 * Scenario files of the probes and checks live in a temporary directory under the cases'
 * scratch space, removed at the end. Cases keep their positions between the probes and the
 * check: a hook sees `test-session-<position>` as its session id.
 */
import { neverRunningRegistrations } from "../../hooks/lint/foreign_tool_references.ts";
import { loadSessionHooks } from "../../hooks/session_hooks.ts";
import type { CompatProfile } from "../../profile/compat_profile.ts";
import type { CaseResult } from "../scenarios/case_result.ts";
import { scratchDir } from "../runner/hermetic_env.ts";
import { observedEvent } from "./observed_event.ts";
import { observedSession } from "./observed_session.ts";
import { runScenarios } from "../runner/run_scenarios.ts";
import type { RunOptions, RunResult } from "../scenarios/scenario_run.ts";
import { eventExpect, type HookNames, sessionExpect } from "./scaffold_expect.ts";
import { hookText } from "./scaffold_hook_text.ts";
import { refersTo } from "../runner/expectation_match.ts";
import { hookLabel } from "../runner/hook_label.ts";
import { caseIndexOf } from "../scenarios/invalid_cases.ts";
import { planSuite } from "./scaffold_plan.ts";
import { caseName, probeText, suiteText, type WrittenCase } from "./scaffold_file.ts";

export interface ScaffoldRequest {
  readonly projectDir: string;
  readonly profile: CompatProfile;
  /** The outer environment: where scratch places go, and the allowlist hooks get. */
  readonly env: (name: string) => string | undefined;
}

export interface ScaffoldDeps {
  readonly runScenarios?: (options: RunOptions) => Promise<RunResult>;
}

export type Scaffold =
  | {
    readonly ok: true;
    readonly text: string;
    readonly eventCases: number;
    readonly sessionCases: number;
    /** Registrations that fire here. */
    readonly hooks: number;
    /** Hooks with no case of their own, and cases taken out: the file's comments say why. */
    readonly notes: readonly string[];
    /** Hooks of `.claude/settings.local.json`, usually not committed: absent in CI. */
    readonly localHooks: number;
  }
  | { readonly ok: false; readonly message: string };

/** Checks of the written file before a case is given up: each round takes failing cases out. */
const CHECK_ROUNDS = 3;

export async function scaffoldSuite(
  request: ScaffoldRequest,
  deps: ScaffoldDeps = {},
): Promise<Scaffold> {
  const run = deps.runScenarios ?? ((options: RunOptions) => runScenarios(options));
  const { projectDir, profile } = request;
  const hooks = await loadSessionHooks(projectDir, undefined, { profile });
  const { registry } = hooks;
  if (registry.disabledBy.length > 0) {
    return {
      ok: false,
      message:
        `No hook fires here: "disableAllHooks" is true in ${registry.disabledBy.join(", ")}` +
        ": remove it to write tests for the hooks",
    };
  }
  const texts = new Map<string, string>();
  for (const registration of registry.registrations) {
    texts.set(registration.id, await hookText(registration.handler, projectDir));
  }
  const neverRun = new Map(
    neverRunningRegistrations(registry, profile).map(({ entry, why }) => [entry.id, why.reason]),
  );
  const plan = planSuite({ registry, profile, projectDir, texts, neverRun });
  if (plan.firing.length === 0) {
    return { ok: false, message: noHooksMessage(registry.registrations.length, profile) };
  }

  // A ref is an id (from --explain) or already a label (from `matched`): refersTo takes both.
  const hookOf = (ref: string) => registry.registrations.find((r) => refersTo(ref, r));
  const names: HookNames = {
    label: (ref) => {
      const found = hookOf(ref);
      return found === undefined ? ref : hookLabel(found, registry.registrations);
    },
    isVolatile: (ref) => hookOf(ref)?.handler.type === "http",
  };
  const scratch = await makeScratch(request.env);
  try {
    const probe = async () =>
      await runFile(run, request, scratch, probeText(plan.cases, plan.session, profile));
    const [first, second] = [await probe(), await probe()];
    const notes = [...plan.notes];
    let cases: WrittenCase[] = [];
    plan.cases.forEach((planned, i) => {
      const a = observedEvent(first[i]!);
      const b = observedEvent(second[i]!);
      if (!a.ok || !b.ok) {
        notes.push(`Left out ${planned.subject}: ${!a.ok ? a.error : !b.ok ? b.error : ""}`);
        return;
      }
      const expect = eventExpect(planned.event, a.observed, b.observed, names);
      cases.push({ kind: "event", planned, expect });
    });
    const sessionIndex = plan.cases.length;
    const s1 = observedSession(first[sessionIndex]!);
    const s2 = observedSession(second[sessionIndex]!);
    if (s1.ok && s2.ok) {
      cases.push({
        kind: "session",
        session: plan.session,
        expect: sessionExpect(s1.observed, s2.observed, plan.session.tool.capability === "shell"),
      });
    } else {
      notes.push(`Left out the session case: ${!s1.ok ? s1.error : !s2.ok ? s2.error : ""}`);
    }
    for (let round = 0; round < CHECK_ROUNDS; round++) {
      const results = await runFile(
        run,
        request,
        scratch,
        suiteText(cases, notes, profile, plan.firing),
      );
      const failing = cases.filter((_, i) => results[i]?.status !== "passed");
      if (failing.length === 0) break;
      for (const written of failing) {
        const result = results[cases.indexOf(written)];
        notes.push(
          `Left out "${caseName(written)}": it did not pass when checked (${whyNot(result)})`,
        );
      }
      cases = cases.filter((written) => !failing.includes(written));
    }
    const localHooks = plan.firing.filter((r) => r.source.scope === "local").length;
    return {
      ok: true,
      text: suiteText(cases, notes, profile, plan.firing),
      eventCases: cases.filter((c) => c.kind === "event").length,
      sessionCases: cases.filter((c) => c.kind === "session").length,
      hooks: plan.firing.length,
      notes,
      localHooks,
    };
  } finally {
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
  }
}

function noHooksMessage(registered: number, profile: CompatProfile): string {
  if (registered === 0) {
    return "No hooks to test: .claude/settings.json and .claude/settings.local.json register " +
      'none (hooks in $HOME/.claude/settings.json are left out: "hooks test" runs with an empty ' +
      'HOME). Add hooks to .claude/settings.json, check them with "llama-agent hooks list", then ' +
      "run init again";
  }
  const other = profile.id === "claude" ? "llama" : "claude";
  return `No hook fires here: the ${registered} registered hook(s) never run under the ` +
    `"${profile.id}" profile. Run "llama-agent hooks list" to see why, or try --compat ${other}`;
}

async function makeScratch(env: (name: string) => string | undefined): Promise<string> {
  const base = scratchDir(env);
  await Deno.mkdir(base, { recursive: true });
  return await Deno.makeTempDir({ dir: base, prefix: "hooks_init_" });
}

/** Runs one scenario text; the results in case order (a case that did not run: undefined). */
async function runFile(
  run: (options: RunOptions) => Promise<RunResult>,
  request: ScaffoldRequest,
  scratch: string,
  text: string,
): Promise<(CaseResult | undefined)[]> {
  const file = `${scratch}/${crypto.randomUUID()}.test.jsonc`;
  await Deno.writeTextFile(file, text);
  const result = await run({
    projectDir: request.projectDir,
    files: [file],
    explain: true,
    profile: request.profile,
    env: request.env,
  });
  if (result.problems.length > 0) {
    // A bug of init's, not the user's: say what the checker said.
    throw new Error(`hooks init wrote an invalid scenario: ${result.problems[0]!.message}`);
  }
  const byPosition = new Map(result.results.map((r) => [caseIndexOf(r.location.pointer), r]));
  return Array.from({ length: result.results.length }, (_, i) => byPosition.get(i));
}

function whyNot(result: CaseResult | undefined): string {
  if (result === undefined) return "it did not run";
  if (result.status === "error") return result.error ?? "it could not run";
  return result.failures[0]?.message ?? result.status;
}
