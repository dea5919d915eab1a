import type { CommandRunOptions } from "../../src/os/process/command_runner.ts";
import type { EvaluationRequest } from "../../src/hooks/handlers/evaluator.ts";
import { createHandlerRunner } from "../../src/hooks/handlers/handler_dispatch.ts";
import type { HandlerContext } from "../../src/hooks/handler_runner.ts";
import { assertEquals } from "../helpers/assert.ts";
import { exited, registration } from "./registration_fixture.ts";

const payload = { session_id: "s", hook_event_name: "PreToolUse" };
const context: HandlerContext = { event: "PreToolUse", cwd: "/project", sessionId: "s" };

Deno.test("each handler type goes to its own runner, with the injected dependencies", async () => {
  const seen: string[] = [];
  const runner = createHandlerRunner({
    baseEnv: { FROM_BASE: "1" },
    runCommand: (options: CommandRunOptions) => {
      seen.push(`command ${JSON.stringify(options.commandLine)} ${options.env.FROM_BASE}`);
      return Promise.resolve(exited(0));
    },
    fetch: (input) => {
      seen.push(`http ${input}`);
      return Promise.resolve(new Response("{}"));
    },
    evaluator: {
      evaluate: (request: EvaluationRequest) => {
        seen.push(`${request.kind} ${request.prompt.split("\n")[0]}`);
        return Promise.resolve({ ok: true });
      },
    },
  });
  const kinds = [
    (await runner(registration({ type: "command", command: "true" }), payload, context)).kind,
    (await runner(registration({ type: "http", url: "http://hooks.invalid/" }), payload, context))
      .kind,
    (await runner(registration({ type: "prompt", prompt: "p" }), payload, context)).kind,
    (await runner(registration({ type: "agent", prompt: "a" }), payload, context)).kind,
  ];
  assertEquals(kinds, ["exited", "http", "evaluated", "evaluated"]);
  assertEquals(seen, [
    'command {"kind":"shell","command":"true"} 1',
    "http http://hooks.invalid/",
    "prompt p",
    "agent a",
  ]);
});

Deno.test("without an evaluator, prompt and agent hooks fail with no_evaluator", async () => {
  const runner = createHandlerRunner({ baseEnv: {} });
  for (const type of ["prompt", "agent"] as const) {
    const result = await runner(registration({ type, prompt: "x" }), payload, context);
    assertEquals(result.kind === "failed" && result.failure, "no_evaluator");
  }
});
