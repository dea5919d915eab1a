import { assert, assertEquals, assertLess } from "../helpers/assert.ts";
import type { HandlerResult } from "../../src/hooks/handler_result.ts";
import type { HandlerContext, HandlerRunner } from "../../src/hooks/handler_runner.ts";
import { fireHooks, type FireHooksRequest } from "../../src/hooks/hook_engine.ts";
import type { Registration } from "../../src/hooks/registration.ts";
import { commandRegistration, exited } from "./registration_fixture.ts";

const CONTEXT: HandlerContext = { event: "PreToolUse", cwd: "/project", sessionId: "s-1" };
const PAYLOAD = {
  hook_event_name: "PreToolUse",
  tool_name: "shell",
  tool_input: { command: "ls" },
};

function registrations(count: number): Registration[] {
  return Array.from(
    { length: count },
    (_, order) => commandRegistration(`./hook${order}.sh`, { order }),
  );
}

function request(list: readonly Registration[], runHandler: HandlerRunner): FireHooksRequest {
  return {
    event: "PreToolUse",
    matcherValue: "shell",
    payload: PAYLOAD,
    registrations: list,
    runHandler,
    context: CONTEXT,
  };
}

function after(ms: number, result: HandlerResult): Promise<HandlerResult> {
  return new Promise((resolve) => setTimeout(() => resolve(result), ms));
}

Deno.test("all registrations run in parallel: 8 hooks of 200 ms take well under 8 × 200 ms", async () => {
  let running = 0;
  let mostAtOnce = 0;
  const runner: HandlerRunner = async () => {
    running++;
    mostAtOnce = Math.max(mostAtOnce, running);
    const result = await after(200, exited(0));
    running--;
    return result;
  };
  const started = performance.now();
  const firing = await fireHooks(request(registrations(8), runner));
  const elapsed = performance.now() - started;
  assertEquals(firing.runs.length, 8);
  assertEquals(mostAtOnce, 8);
  assertLess(elapsed, 800, "8 hooks of 200 ms each");
});

Deno.test("every registration gets the payload and the context", async () => {
  const seen: string[] = [];
  const runner: HandlerRunner = (registration, payload, context) => {
    assertEquals([payload, context], [PAYLOAD, CONTEXT]);
    seen.push(registration.id);
    return Promise.resolve(exited(0));
  };
  await fireHooks(request(registrations(3), runner));
  assertEquals(seen.length, 3);
});

Deno.test("runs are in chain order whatever order the handlers finish in", async () => {
  const list = registrations(4);
  const delays = [60, 0, 40, 20];
  const finished: number[] = [];
  const runner: HandlerRunner = async (registration) => {
    const result = await after(
      delays[registration.order] ?? 0,
      exited(2, { stderr: `r${registration.order}` }),
    );
    finished.push(registration.order);
    return result;
  };
  const firing = await fireHooks(request(list, runner));
  assertEquals(finished, [1, 3, 2, 0]);
  assertEquals(firing.runs.map((run) => run.registration.order), [0, 1, 2, 3]);
  const verdict = firing.decision.verdict;
  assert(verdict.kind === "block");
  assertEquals(
    verdict.reason,
    "[./hook0.sh]: r0\n[./hook1.sh]: r1\n[./hook2.sh]: r2\n[./hook3.sh]: r3",
  );
});

Deno.test("a runner that throws or rejects is a non-blocking error, never a rejected firing", async () => {
  const runner: HandlerRunner = (registration) => {
    if (registration.order === 0) throw new Error("sync boom");
    if (registration.order === 1) return Promise.reject(new TypeError("async boom"));
    return Promise.resolve(exited(0));
  };
  const firing = await fireHooks(request(registrations(3), runner));
  assertEquals(firing.runs.map((run) => [run.result === null, run.outcome.kind]), [
    [true, "error"],
    [true, "error"],
    [false, "success"],
  ]);
  assertEquals(firing.decision.verdict, { kind: "none" });
  assertEquals(firing.decision.errors.map((e) => e.detail), [
    "The hook runner failed: sync boom",
    "The hook runner failed: async boom",
  ]);
});

Deno.test("the firing names the event, the matcher value and each run's raw result", async () => {
  const result = exited(0, { stdout: '{"systemMessage":"hi"}' });
  const firing = await fireHooks(request(registrations(1), () => Promise.resolve(result)));
  assertEquals([firing.event, firing.matcherValue], ["PreToolUse", "shell"]);
  assertEquals(firing.runs[0]?.result, result);
  assertEquals(firing.decision.systemMessages.map((m) => m.text), ["hi"]);
});

Deno.test("no registrations: nothing runs, and the empty decision is shared between firings", async () => {
  const runner: HandlerRunner = () => {
    throw new Error("must not run");
  };
  const first = await fireHooks(request([], runner));
  const second = await fireHooks(request([], runner));
  assertEquals(first.runs, []);
  assertEquals(first.decision.verdict, { kind: "none" });
  assert(first.decision === second.decision, "the empty decision is built once per event");
  assert(first.runs === second.runs, "the empty run list is shared");
});
