/**
 * A firing's per-hook environment (SessionStart's `CLAUDE_ENV_FILE`, hooks.md §12.7): the engine
 * asks the caller for each hook's variables by its position, a hook whose variables cannot be
 * made does not run, and a hook of another event gets no `CLAUDE_ENV_FILE`, even one the agent
 * inherited.
 */
import { hookEnvironment } from "../../src/hooks/handlers/command_handler.ts";
import type { HandlerContext, HandlerRunner } from "../../src/hooks/handler_runner.ts";
import { fireHooks } from "../../src/hooks/hook_engine.ts";
import { assertEquals } from "../helpers/assert.ts";
import { commandRegistration, exited } from "./registration_fixture.ts";

const CONTEXT: HandlerContext = { event: "SessionStart", cwd: "/project", sessionId: "s-1" };

Deno.test("each hook of a firing gets the variables made for its position", async () => {
  const seen = new Map<string, HandlerContext["extraEnv"]>();
  const runner: HandlerRunner = (registration, _payload, context) => {
    seen.set(registration.id, context.extraEnv);
    return Promise.resolve(exited(0));
  };
  const registrations = [0, 1, 2].map((order) =>
    commandRegistration(`./h${order}.sh`, { event: "SessionStart", order })
  );
  await fireHooks({
    event: "SessionStart",
    matcherValue: "startup",
    payload: {},
    registrations,
    runHandler: runner,
    context: CONTEXT,
    hookEnv: (_registration, position) => Promise.resolve({ CLAUDE_ENV_FILE: `/env/${position}` }),
  });
  assertEquals(registrations.map((r) => seen.get(r.id)), [
    { CLAUDE_ENV_FILE: "/env/0" },
    { CLAUDE_ENV_FILE: "/env/1" },
    { CLAUDE_ENV_FILE: "/env/2" },
  ]);
});

Deno.test("a hook whose variables cannot be made does not run and is a non-blocking error", async () => {
  const ran: number[] = [];
  const registrations = [0, 1].map((order) =>
    commandRegistration(`./h${order}.sh`, { event: "SessionStart", order })
  );
  const firing = await fireHooks({
    event: "SessionStart",
    matcherValue: "startup",
    payload: {},
    registrations,
    runHandler: (registration) => (ran.push(registration.order), Promise.resolve(exited(0))),
    context: CONTEXT,
    hookEnv: (_registration, position) =>
      position === 0 ? Promise.reject(new Error("disk full")) : Promise.resolve({}),
  });
  assertEquals(ran, [1]);
  assertEquals(firing.runs.map((run) => run.outcome.kind), ["error", "success"]);
});

Deno.test("a hook's environment: the firing's variables, and no inherited CLAUDE_ENV_FILE", () => {
  const base = { PATH: "/bin", CLAUDE_ENV_FILE: "/elsewhere/claude-code.sh" };
  const other = hookEnvironment(base, { ...CONTEXT, event: "PreToolUse" });
  assertEquals(other.CLAUDE_ENV_FILE, undefined);
  assertEquals(other.PATH, "/bin");
  const start = hookEnvironment(base, { ...CONTEXT, extraEnv: { CLAUDE_ENV_FILE: "/mine.sh" } });
  assertEquals(start.CLAUDE_ENV_FILE, "/mine.sh");
  assertEquals(start.CLAUDE_PROJECT_DIR, "/project");
});
