/**
 * What real hook processes (and a real http endpoint) decide once the engine has read them:
 * exit codes and JSON output (hooks.md §7), and how several hooks combine (§8).
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { fire, group, ranIds, settings, withProject } from "./engine_project.ts";

const DENY_JSON = JSON.stringify({
  hookSpecificOutput: {
    hookEventName: "PreToolUse",
    permissionDecision: "deny",
    permissionDecisionReason: "json says no",
  },
});

/** A script that reads its stdin, then prints `json` and exits 0. */
function answers(json: unknown): string {
  return `cat > /dev/null\nprintf '%s\\n' '${JSON.stringify(json)}'`;
}

Deno.test("exit 2 with stderr denies a PreToolUse with the reason [<cmd>]: <stderr>", async () => {
  await withProject({
    project: settings({ PreToolUse: [group("shell", "./hooks/deny.sh")] }),
    scripts: {
      "deny.sh": [
        "cat > /dev/null",
        // Stdout JSON is ignored on exit 2.
        `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`,
        'echo "  rm -rf is not allowed  " >&2',
        "exit 2",
      ].join("\n"),
    },
  }, async (project) => {
    const { firing } = await fire(project, "PreToolUse", {
      tool_name: "shell",
      tool_input: { command: "rm -rf /" },
    });
    const run = firing.runs[0];
    assertEquals(run?.result?.kind === "exited" && run.result.exitCode, 2);
    assertEquals(firing.decision.verdict, {
      kind: "block",
      reason: "[./hooks/deny.sh]: rm -rf is not allowed",
      blocks: [{
        by: "project:/hooks/PreToolUse/0/hooks/0",
        command: "./hooks/deny.sh",
        source: "exit_2",
        reason: "[./hooks/deny.sh]: rm -rf is not allowed",
        detail: "rm -rf is not allowed",
      }],
    });
  });
});

Deno.test("exit 2 with no stderr denies with the reason No stderr output", async () => {
  await withProject({
    project: settings({ PreToolUse: [group("shell", "cat > /dev/null; exit 2")] }),
  }, async (project) => {
    const { firing } = await fire(project, "PreToolUse", { tool_name: "shell" });
    assertEquals(
      firing.decision.verdict.kind === "block" && firing.decision.verdict.reason,
      "[cat > /dev/null; exit 2]: No stderr output",
    );
  });
});

Deno.test("a JSON deny is a deny; followed by a log line it is a non-blocking error, not a deny", async () => {
  await withProject({
    project: settings({
      PreToolUse: [group("shell", "./hooks/deny_json.sh"), group("terminal", "./hooks/noisy.sh")],
    }),
    scripts: {
      "deny_json.sh": `cat > /dev/null\nprintf '%s\\n' '${DENY_JSON}'`,
      "noisy.sh": `cat > /dev/null\nprintf '%s\\n' '${DENY_JSON}'\necho "checked 3 rules"`,
    },
  }, async (project) => {
    const json = await fire(project, "PreToolUse", { tool_name: "shell" });
    assertEquals(
      json.firing.decision.verdict.kind === "block" && json.firing.decision.verdict.reason,
      "json says no",
    );

    const noisy = await fire(project, "PreToolUse", { tool_name: "terminal" });
    const outcome = noisy.firing.runs[0]?.outcome;
    assertEquals(outcome?.kind === "error" && outcome.cause, "output_invalid");
    assertEquals(noisy.firing.decision.verdict, { kind: "none" });
    assertEquals(noisy.firing.decision.errors.length, 1, "the user is told");
  });
});

Deno.test("updatedInput with permissionDecision allow survives (hooks.md §11)", async () => {
  const rewrite = {
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "allow",
      permissionDecisionReason: "made safe",
      updatedInput: { command: "ls -la --color=never" },
    },
  };
  await withProject({
    project: settings({ PreToolUse: [group("shell", "./hooks/rewrite.sh")] }),
    scripts: { "rewrite.sh": answers(rewrite) },
  }, async (project) => {
    const { firing } = await fire(project, "PreToolUse", {
      tool_name: "shell",
      tool_input: { command: "ls -la" },
    });
    const by = "project:/hooks/PreToolUse/0/hooks/0";
    assertEquals(firing.decision.verdict, { kind: "allow", votes: [{ by, reason: "made safe" }] });
    assertEquals(firing.decision.updatedInput, {
      by,
      input: { command: "ls -la --color=never" },
    });
  });
});

Deno.test("a deny beats an allow; two deny reasons are joined in chain order", async () => {
  const allow = {
    hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" },
  };
  await withProject({
    // The user hook finishes last, yet its reason comes first.
    user: settings({ PreToolUse: [group("shell", "sleep 0.3; ./hooks/deny.sh user")] }),
    project: settings({
      PreToolUse: [
        group("shell", "./hooks/allow.sh"),
        group("shell", "./hooks/deny.sh project"),
      ],
    }),
    scripts: {
      "allow.sh": answers(allow),
      "deny.sh": 'cat > /dev/null\necho "denied by $1" >&2\nexit 2',
    },
  }, async (project) => {
    const { firing } = await fire(project, "PreToolUse", { tool_name: "shell" });
    assertEquals(firing.runs.map((run) => run.outcome.kind), ["block", "success", "block"]);
    const verdict = firing.decision.verdict;
    assertEquals(verdict.kind, "block");
    assertEquals(
      verdict.kind === "block" && verdict.reason,
      "[sleep 0.3; ./hooks/deny.sh user]: denied by user\n" +
        "[./hooks/deny.sh project]: denied by project",
    );
    assertEquals(verdict.kind === "block" && verdict.blocks.map((b) => b.by), [
      "user:/hooks/PreToolUse/0/hooks/0",
      "project:/hooks/PreToolUse/1/hooks/0",
    ]);
  });
});

Deno.test("continue:false beats a deny", async () => {
  await withProject({
    project: settings({
      PreToolUse: [
        group("shell", "./hooks/deny.sh"),
        group("shell", "./hooks/halt.sh"),
      ],
    }),
    scripts: {
      "deny.sh": 'cat > /dev/null\necho "no" >&2\nexit 2',
      "halt.sh": answers({ continue: false, stopReason: "maintenance window" }),
    },
  }, async (project) => {
    const { firing } = await fire(project, "PreToolUse", { tool_name: "shell" });
    assertEquals(firing.decision.verdict, {
      kind: "stop",
      by: "project:/hooks/PreToolUse/1/hooks/0",
      stopReason: "maintenance window",
    });
  });
});

Deno.test("a hookSpecificOutput for another event is a non-blocking error", async () => {
  const wrong = {
    hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "from the wrong event" },
  };
  await withProject({
    project: settings({ PreToolUse: [group("shell", "./hooks/wrong.sh")] }),
    scripts: { "wrong.sh": answers(wrong) },
  }, async (project) => {
    const { firing } = await fire(project, "PreToolUse", { tool_name: "shell" });
    assertEquals(firing.decision.verdict, { kind: "none" });
    assertEquals(firing.decision.contexts, []);
    assertEquals(firing.decision.errors, [{
      by: "project:/hooks/PreToolUse/0/hooks/0",
      command: "./hooks/wrong.sh",
      cause: "output_invalid",
      detail: 'Hook output is invalid: "hookSpecificOutput.hookEventName" must be "PreToolUse" ' +
        '(got "PostToolUse")',
      timedOut: false,
    }]);
  });
});

Deno.test("PostToolUse decision:block is honoured, with its reason (hooks.md §11)", async () => {
  await withProject({
    project: settings({ PostToolUse: [group("fs_write", "./hooks/review.sh")] }),
    scripts: {
      "review.sh": answers({ decision: "block", reason: "the file now has a secret in it" }),
    },
  }, async (project) => {
    const { firing } = await fire(project, "PostToolUse", {
      tool_name: "fs_write",
      tool_input: { file_path: "/p/.env", content: "KEY=1" },
      tool_response: { ok: true },
    });
    assertEquals(firing.decision.verdict, {
      kind: "block",
      reason: "the file now has a secret in it",
      blocks: [{
        by: "project:/hooks/PostToolUse/0/hooks/0",
        command: "./hooks/review.sh",
        source: "decision",
        reason: "the file now has a secret in it",
        detail: "the file now has a secret in it",
      }],
    });
  });
});

Deno.test("SessionStart plain stdout is kept as text for the model, by source", async () => {
  await withProject({
    project: settings({
      SessionStart: [
        group("startup", "cat > /dev/null; echo 'branch: main'; echo 'status: clean'"),
        group("resume", "cat > /dev/null; echo 'resumed'"),
      ],
    }),
  }, async (project) => {
    const { firing, payload } = await fire(project, "SessionStart", {});
    assertEquals(payload.source, "startup");
    assertEquals(firing.decision.texts, [{
      by: "project:/hooks/SessionStart/0/hooks/0",
      text: "branch: main\nstatus: clean",
    }]);
    const resume = await fire(project, "SessionStart", { source: "resume" });
    assertEquals(resume.firing.decision.texts.map((t) => t.text), ["resumed"]);
  });
});

Deno.test("an http hook on a loopback server answering a JSON deny denies", async () => {
  const bodies: string[] = [];
  const types: (string | null)[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    types.push(req.headers.get("content-type"));
    bodies.push(await req.text());
    return Response.json({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "the policy server says no",
      },
    });
  });
  try {
    const url = `http://127.0.0.1:${server.addr.port}/hook`;
    await withProject({
      project: settings({ PreToolUse: [group("shell", { type: "http", url, timeout: 30 })] }),
    }, async (project) => {
      const { firing, payload } = await fire(project, "PreToolUse", {
        tool_name: "shell",
        tool_input: { command: "curl evil.example" },
      });
      assertEquals(bodies, [JSON.stringify(payload)]);
      assertEquals(types, ["application/json"]);
      const run = firing.runs[0];
      assertEquals(run?.result?.kind === "http" && run.result.status, 200);
      assertEquals(firing.decision.verdict.kind, "block");
      assertEquals(
        firing.decision.verdict.kind === "block" && firing.decision.verdict.blocks,
        [{
          by: "project:/hooks/PreToolUse/0/hooks/0",
          command: `POST ${url}`,
          source: "permission_decision",
          reason: "the policy server says no",
          detail: "the policy server says no",
        }],
      );
    });
  } finally {
    await server.shutdown();
  }
});

Deno.test("a prompt hook with no evaluator is a non-blocking error that says it needs a model", async () => {
  await withProject({
    project: settings({
      PreToolUse: [group("shell", { type: "prompt", prompt: "Is this safe? $ARGUMENTS" })],
      Stop: [group(undefined, { type: "agent", prompt: "Is the work done?" })],
    }),
  }, async (project) => {
    const { firing } = await fire(project, "PreToolUse", { tool_name: "shell" });
    assertEquals(ranIds(firing), ["project:/hooks/PreToolUse/0/hooks/0"]);
    assertEquals(firing.decision.verdict, { kind: "none" });
    const error = firing.decision.errors[0];
    assertEquals(error?.cause, "no_evaluator");
    assertStringIncludes(error?.detail ?? "", "need a model");
    assertStringIncludes(error?.detail ?? "", '"prompt"');

    const stop = await fire(project, "Stop", {});
    assertEquals(stop.firing.decision.verdict, { kind: "none" });
    assert(stop.firing.decision.errors[0]?.detail.includes('"agent" hooks need a model'));
  });
});
