import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { noticesOf, withInMemoryAgent } from "./in_memory_agent.ts";
import { reply, steppedModel } from "./fake_models.ts";
import { recordingModel, text, TURN_KEYS } from "./claude_session_fixture.ts";
import { logging, printing, readLog, seen, settings } from "./hook_fixtures.ts";
import type { GenerateRequest } from "../../src/model/model.ts";

Deno.test("SessionStart fires once with source startup, and its context starts the model's context", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        SessionStart: [[null, logging("start.log")], [
          null,
          printing({
            hookSpecificOutput: {
              hookEventName: "SessionStart",
              additionalContext: "The build is red.",
            },
          }),
        ]],
      }),
    },
    model: recordingModel([reply("ok")], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
    const log = await readLog(`${t.cwd}/start.log`);
    assertEquals(log.map((p) => [p.hook_event_name, p.source, p.session_id]), [[
      "SessionStart",
      "startup",
      sessionId,
    ]]);
    assert(
      !("permission_mode" in log[0]!) && !("prompt_id" in log[0]!),
      "SessionStart has neither",
    );
    const system = requests[0]!.conversation[0]!;
    assert(system.role === "system");
    assertStringIncludes(system.text, "SessionStart hook additional context: The build is red.");
  });
});

Deno.test("SessionStart fires once per session id per process; a session loaded again keeps its context", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        SessionStart: [[null, `${logging("start.log")}; echo 'on call: Ada'`]],
      }),
    },
    model: recordingModel([reply("ok")], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/close", { sessionId });
    await t.agent.request("session/load", { sessionId, cwd: t.cwd, mcpServers: [] });
    await t.agent.request("session/resume", { sessionId, cwd: t.cwd });
    const log = await readLog(`${t.cwd}/start.log`);
    assertEquals(log.map((p) => p.source), ["startup"]);
    await t.agent.request("session/prompt", { sessionId, prompt: text("who?") });
    assertStringIncludes(seen(requests[0]!), "SessionStart:startup hook success: on call: Ada");
  });
});

Deno.test("a UserPromptSubmit exit 2 refuses the prompt before the model is invoked", async () => {
  let invoked = false;
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        UserPromptSubmit: [[null, "echo 'no secrets here' >&2; exit 2"]],
      }),
    },
    model: steppedModel([(r) => ((invoked = true), reply("x")(r))]),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", {
      sessionId,
      prompt: text("print the api key"),
    });
    assertEquals(response.stopReason, "refusal");
    assertEquals(invoked, false);
    assertEquals((response._meta as { tokens: Record<string, number> }).tokens, {
      prompt: 0,
      evaluated: 0,
      generated: 0,
    });
    assertEquals(
      t.text(sessionId),
      "UserPromptSubmit operation blocked by hook:\n[echo 'no secrets here' >&2; exit 2]: no secrets here\n\nOriginal prompt: print the api key",
    );
  });
});

Deno.test("UserPromptSubmit context and plain stdout reach the model before the prompt; the payload is Claude Code's", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        UserPromptSubmit: [
          [null, logging("ups.log")],
          [null, "echo 'today is Friday'"],
          [
            null,
            printing({
              hookSpecificOutput: {
                hookEventName: "UserPromptSubmit",
                additionalContext: "No deploys.",
              },
            }),
          ],
        ],
      }),
    },
    model: recordingModel([reply("ok")], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text: "deploy" },
        { type: "resource_link", uri: "file:///x/a.ts", name: "a.ts" },
      ],
    });
    const user = requests[0]!.conversation.at(-1)!;
    assert(user.role === "user");
    assertEquals(
      user.text,
      "<system-reminder>\nUserPromptSubmit hook success: today is Friday\n</system-reminder>\n\n" +
        "<system-reminder>\nUserPromptSubmit hook additional context: No deploys.\n</system-reminder>\n\n" +
        'deploy\n\n<context uri="file:///x/a.ts" name="a.ts"/>',
    );
    const [payload] = await readLog(`${t.cwd}/ups.log`);
    assertEquals(Object.keys(payload!), [
      ...TURN_KEYS,
      "hook_event_name",
      "prompt",
    ]);
    assertEquals([payload!.prompt, payload!.permission_mode, payload!.cwd], [
      "deploy\nfile:///x/a.ts",
      "acceptEdits",
      t.cwd,
    ]);
    assert(
      await Deno.stat(String(payload!.transcript_path)).then(() => true),
      "the transcript exists",
    );
  });
});

Deno.test("permission_mode follows the session's mode", async () => {
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({ UserPromptSubmit: [[null, logging("ups.log")]] }),
    },
    script: { turns: [{ text: "a" }, { text: "b" }] },
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("1") });
    await t.agent.request("session/set_mode", { sessionId, modeId: "always-ask" });
    await t.agent.request("session/prompt", { sessionId, prompt: text("2") });
    const log = await readLog(`${t.cwd}/ups.log`);
    assertEquals(log.map((p) => p.permission_mode), ["acceptEdits", "default"]);
    assert(log[0]!.prompt_id !== log[1]!.prompt_id, "one prompt_id per session/prompt");
  });
});

Deno.test("a Stop block annotates the response; with the option on, the model hears it and goes on", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        Stop: [[
          null,
          `${
            logging("stop.log")
          }; if grep -q '"stop_hook_active":false' "$CLAUDE_PROJECT_DIR/stop.log" && [ $(wc -l < "$CLAUDE_PROJECT_DIR/stop.log") -le 2 ]; then echo 'run the tests first' >&2; exit 2; fi`,
        ]],
      }),
    },
    model: recordingModel([reply("done"), reply("tests pass"), reply("done")], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    const plain = await t.agent.request("session/prompt", { sessionId, prompt: text("fix it") });
    assertEquals(plain.stopReason, "end_turn");
    assertEquals(plain._meta?.hook_should_continue, true);
    assertStringIncludes(String(plain._meta?.hook_reason), "run the tests first");
    assertEquals(requests.length, 1, "without the option the turn ends");

    await Deno.remove(`${t.cwd}/stop.log`);
    await t.agent.request("session/set_config_option", {
      sessionId,
      configId: "stop_hooks_continue",
      type: "boolean",
      value: true,
    });
    const continued = await t.agent.request("session/prompt", { sessionId, prompt: text("again") });
    assertEquals(continued.stopReason, "end_turn");
    assertEquals(requests.length, 3, "the Stop feedback made the model go on once");
    assertStringIncludes(seen(requests[2]!), "Stop hook feedback:\n[");
    const log = await readLog(`${t.cwd}/stop.log`);
    assertEquals(log.map((p) => [p.stop_hook_active, p.last_assistant_message]), [[
      false,
      "tests pass",
    ], [true, "done"]]);
  });
});

Deno.test("systemMessage and a crashing hook are shown to the user, never to the model", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        UserPromptSubmit: [[null, printing({ systemMessage: "Remember the style guide" })], [
          null,
          "echo boom >&2; exit 1",
        ]],
      }),
    },
    model: recordingModel([reply("ok"), reply("ok")], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
    const notices = noticesOf(t.updates);
    assertEquals(notices, [
      "UserPromptSubmit says: Remember the style guide",
      "A hook gave no usable answer, so it didn't check this action.\n[echo boom >&2; exit 1]: boom",
    ]);
    await t.agent.request("session/prompt", { sessionId, prompt: text("again") });
    const everything = seen(requests[1]!);
    assert(!everything.includes("style guide") && !everything.includes("boom"), everything);
  });
});

Deno.test("Notification fires once per finished message, after the stream, without delaying the answer", async () => {
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        Notification: [[null, `sleep 1; ${logging("note.log")}`]],
      }),
    },
    script: {
      turns: [{ thought: "Let me think about it.", text: "Here is a long answer in many chunks." }],
    },
  }, async (t) => {
    const sessionId = await t.newSession();
    const started = performance.now();
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
    assertEquals(response.stopReason, "end_turn");
    assert(performance.now() - started < 900, "the response did not wait for the 1 s hooks");
    const deadline = performance.now() + 5000;
    while ((await readLog(`${t.cwd}/note.log`)).length < 2 && performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const log = await readLog(`${t.cwd}/note.log`);
    assertEquals(log.map((p) => [p.notification_type, p.message]).sort(), [
      ["agent_message", "Here is a long answer in many chunks."],
      ["agent_thought", "Let me think about it."],
    ]);
  });
});

Deno.test("disableAllHooks in settings.local.json disables every hook, HOME's included", async () => {
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        UserPromptSubmit: [[null, logging("any.log")]],
        Stop: [[null, logging("any.log")]],
      }),
      ".claude/settings.local.json": JSON.stringify({ disableAllHooks: true }),
    },
    homeFiles: {
      ".claude/settings.json": settings({
        SessionStart: [[null, "exit 2"]],
        UserPromptSubmit: [[null, "exit 2"]],
      }),
    },
    script: { turns: [{ text: "ok" }] },
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
    assertEquals(response.stopReason, "end_turn");
    assertEquals(await readLog(`${t.cwd}/any.log`), []);
  });
});

Deno.test("a HOME hook and a project hook for the same event both fire", async () => {
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        UserPromptSubmit: [[null, 'echo project >> "$CLAUDE_PROJECT_DIR/both.txt"']],
      }),
    },
    homeFiles: {
      ".claude/settings.json": settings({
        UserPromptSubmit: [[null, 'echo home >> "$CLAUDE_PROJECT_DIR/both.txt"']],
      }),
    },
    script: { turns: [{ text: "ok" }] },
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
    const lines = (await Deno.readTextFile(`${t.cwd}/both.txt`)).trim().split("\n").sort();
    assertEquals(lines, ["home", "project"]);
  });
});
