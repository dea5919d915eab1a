/**
 * PermissionRequest in the `claude` profile: it fires right before the agent would ask the client
 * (`session/request_permission`), and an allow or deny answers without asking, as in Claude
 * Code; an allow's `updatedPermissions` rules are kept as the session's "always" answers. In the
 * default profile it never fires.
 */
import type { GenerateRequest } from "../../src/model/model.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import {
  batches,
  calling,
  cancelWhileHanging,
  CLAUDE_TURN_KEYS,
  exists,
  hangingHook,
  lastToolCallUpdate,
  oneCall,
  sleepMarker,
  text,
} from "./claude_session_fixture.ts";
import { logging, printing, readLog, seen, settings } from "./hook_fixtures.ts";
import { noticesOf, withInMemoryAgent } from "./in_memory_agent.ts";

/** A PermissionRequest hook that logs its stdin to perm.log, then answers `json` (if any). */
function permissionHook(json?: unknown): string {
  return json === undefined ? logging("perm.log") : `${logging("perm.log")}; ${printing(json)}`;
}

const decision = (fields: Record<string, unknown>) => ({
  hookSpecificOutput: { hookEventName: "PermissionRequest", decision: fields },
});

function project(command: string, matcher: string | null = "Bash") {
  return {
    ".claude/settings.json": settings({
      PermissionRequest: [[matcher, command]],
      PostToolUse: [[null, logging("post.log")]],
    }),
    "victim/keep.txt": "keep me\n",
  };
}

Deno.test("PermissionRequest deny answers without asking the client: the tool does not run, the model hears why", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    profile: "claude",
    files: project(permissionHook(decision({ behavior: "deny", message: "not in this repo" }))),
    model: oneCall("Bash", { command: "rm -rf victim", description: "clean" }, requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(response.stopReason, "end_turn");
    assertEquals(t.permissionRequests.length, 0, "the client is never asked");
    assertEquals(await Deno.readTextFile(`${t.cwd}/victim/keep.txt`), "keep me\n");
    assertStringIncludes(seen(requests[1]!), "tool Bash: not in this repo");
    const final = lastToolCallUpdate(t.updates);
    assertEquals(final.status, "failed");
    assertEquals(final._meta, {
      "llama-agent/hook": {
        event: "PermissionRequest",
        decision: "deny",
        reason: "not in this repo",
      },
    });
    assertEquals(await readLog(`${t.cwd}/post.log`), [], "a call never run fires no Post hook");
  });
});

Deno.test("PermissionRequest exit 2 decides nothing, as in Claude Code 2.1.332: the client is asked, the user told why", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    profile: "claude",
    files: project("echo 'no rm here' >&2; exit 2"),
    model: oneCall("Bash", { command: "rm -rf victim" }, requests),
    onPermission: () => ({ outcome: { outcome: "selected", optionId: "reject_once" } }),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(t.permissionRequests.length, 1, "asked as if no hook had answered");
    assert(await exists(`${t.cwd}/victim/keep.txt`));
    // The model reads the refusal the agent gives, never the hook's stderr.
    assertStringIncludes(seen(requests[1]!), "The user denied permission to run Bash");
    assert(!seen(requests[1]!).includes("no rm here"));
    const notices = noticesOf(t.updates, sessionId).join("\n");
    assertStringIncludes(notices, "Exit 2 decides nothing on PermissionRequest");
    assertStringIncludes(notices, '"behavior": "deny"');
  });
});

Deno.test("PermissionRequest allow runs the call without asking the client", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: project(permissionHook(decision({ behavior: "allow" }))),
    model: oneCall("Bash", { command: "echo ran > out.txt" }),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(t.permissionRequests.length, 0);
    assertEquals(await Deno.readTextFile(`${t.cwd}/out.txt`), "ran\n");
  });
});

Deno.test("PermissionRequest: the source document's top-level approve allows, deny denies", async () => {
  for (const [answer, ran] of [["approve", true], ["deny", false]] as const) {
    await withInMemoryAgent({
      profile: "claude",
      files: project(permissionHook({ decision: answer, reason: "policy" })),
      model: oneCall("Bash", { command: "echo ran > out.txt" }),
    }, async (t) => {
      const sessionId = await t.newSession();
      await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
      assertEquals(t.permissionRequests.length, 0, answer);
      assertEquals(await exists(`${t.cwd}/out.txt`), ran, answer);
    });
  }
});

Deno.test("PermissionRequest allow with updatedInput runs the rewritten input, as hooks and the client then see it", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: project(permissionHook(decision({
      behavior: "allow",
      updatedInput: { command: "echo rewritten > out.txt" },
    }))),
    model: oneCall("Bash", { command: "echo original > out.txt" }),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(await Deno.readTextFile(`${t.cwd}/out.txt`), "rewritten\n");
    const [post] = await readLog(`${t.cwd}/post.log`);
    assertEquals(post!.tool_input, { command: "echo rewritten > out.txt" });
    const shown = t.updates.map((u) => u.update).filter((u) =>
      u.sessionUpdate === "tool_call_update" && u.rawInput !== undefined
    );
    assertEquals(shown.map((u) => u.sessionUpdate === "tool_call_update" && u.rawInput), [
      { command: "echo rewritten > out.txt" },
    ]);
  });
});

Deno.test("PermissionRequest allow with an updatedInput that breaks the schema runs nothing", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    profile: "claude",
    files: project(permissionHook(decision({
      behavior: "allow",
      updatedInput: { description: "no command" },
    }))),
    model: oneCall("Bash", { command: "echo ran > out.txt" }, requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(await exists(`${t.cwd}/out.txt`), false);
    assertStringIncludes(
      seen(requests[1]!),
      "tool Bash: PermissionRequest hook for Bash returned updatedInput that failed validation: ",
    );
  });
});

/** A hook that allows and sends these `updatedPermissions`; a model that runs Bash twice. */
function allowingTwice(updatedPermissions: unknown, requests: GenerateRequest[] = []) {
  return {
    profile: "claude" as const,
    files: project(permissionHook(decision({ behavior: "allow", updatedPermissions }))),
    model: calling([
      ["Bash", { command: "echo one >> out.txt" }],
      ["Bash", { command: "echo two >> out.txt" }],
    ], requests),
  };
}

Deno.test("PermissionRequest allow with updatedPermissions addRules allow: the next call of the tool asks nobody and fires no PermissionRequest", async () => {
  const rule = { type: "addRules", rules: [{ toolName: "Bash" }], behavior: "allow" };
  await withInMemoryAgent(allowingTwice([{ ...rule, destination: "localSettings" }]), async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(await Deno.readTextFile(`${t.cwd}/out.txt`), "one\ntwo\n");
    assertEquals((await readLog(`${t.cwd}/perm.log`)).length, 1, "fired for the first call only");
    assertEquals(t.permissionRequests.length, 0);
    const written = [`${t.cwd}/.claude/settings.local.json`, `${t.home}/.claude/settings.json`];
    for (const path of written) {
      assertEquals(await exists(path), false, `${path}: llama-agent writes no settings`);
    }
  });
});

Deno.test("PermissionRequest allow with updatedPermissions addRules deny: this call runs, the next is refused without asking", async () => {
  const requests: GenerateRequest[] = [];
  const rule = { type: "addRules", rules: [{ toolName: "Bash" }], behavior: "deny" };
  await withInMemoryAgent(
    allowingTwice([{ ...rule, destination: "session" }], requests),
    async (t) => {
      const sessionId = await t.newSession();
      await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
      assertEquals(await Deno.readTextFile(`${t.cwd}/out.txt`), "one\n");
      assertEquals((await readLog(`${t.cwd}/perm.log`)).length, 1);
      assertEquals(t.permissionRequests.length, 0);
      assertStringIncludes(seen(requests[2]!), "tool Bash: The user denied permission to run Bash");
    },
  );
});

Deno.test("PermissionRequest updatedPermissions that cannot be kept change nothing: the allow holds, each is one log line", async () => {
  const updates = [
    { type: "addRules", rules: "Bash", behavior: "allow", destination: "session" },
    { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "echo *" }], behavior: "allow" },
    "Bash",
    { type: "setMode", mode: "bypassPermissions", destination: "session" },
    { type: "addRules", rules: [{ toolName: "Bash" }], behavior: "ask", destination: "session" },
  ];
  for (const updatedPermissions of [updates, { Bash: "allow" }]) {
    await withInMemoryAgent(allowingTwice(updatedPermissions), async (t) => {
      const sessionId = await t.newSession();
      const response = await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
      assertEquals(response.stopReason, "end_turn");
      assertEquals(await Deno.readTextFile(`${t.cwd}/out.txt`), "one\ntwo\n");
      assertEquals((await readLog(`${t.cwd}/perm.log`)).length, 2, "fired for both calls");
      assertEquals(t.permissionRequests.length, 0);
      const lines = t.logs.filter((line) => line.includes("updatedPermissions"));
      // Once per call: each allow sends them again.
      assertEquals(lines.length, Array.isArray(updatedPermissions) ? 10 : 2, lines.join("\n"));
    });
  }
});

Deno.test("PermissionRequest with no decision leaves the client to be asked, as before", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: project(permissionHook()),
    model: oneCall("Bash", { command: "echo ran > out.txt" }),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(t.permissionRequests.length, 1);
    assertEquals(await Deno.readTextFile(`${t.cwd}/out.txt`), "ran\n");
    assertEquals((await readLog(`${t.cwd}/perm.log`)).length, 1);
  });
});

Deno.test("PermissionRequest gets Claude Code's payload, in its key order", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: project(permissionHook()),
    model: oneCall("Bash", { command: "echo hi", description: "greet" }),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    const [payload, ...more] = await readLog(`${t.cwd}/perm.log`);
    assertEquals(more, []);
    assertEquals(Object.keys(payload!), [
      ...CLAUDE_TURN_KEYS,
      "tool_name",
      "tool_input",
      "permission_suggestions",
    ]);
    assertEquals(payload!.hook_event_name, "PermissionRequest");
    assertEquals(payload!.tool_name, "Bash");
    assertEquals(
      JSON.stringify(payload!.tool_input),
      '{"command":"echo hi","description":"greet"}',
    );
    assertEquals(payload!.permission_suggestions, [
      {
        type: "addRules",
        rules: [{ toolName: "Bash" }],
        behavior: "allow",
        destination: "session",
      },
    ]);
  });
});

Deno.test("PermissionRequest for touch suggests Claude Code's: the directory and acceptEdits, not an allow rule", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: project(permissionHook()),
    model: oneCall("Bash", { command: "touch made.txt", description: "make" }),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    const [payload] = await readLog(`${t.cwd}/perm.log`);
    assertEquals(
      JSON.stringify(payload!.permission_suggestions),
      `[{"type":"addDirectories","directories":["${t.cwd}"],"destination":"session"},` +
        '{"type":"setMode","mode":"acceptEdits","destination":"session"}]',
    );
  });
});

Deno.test("PermissionRequest suggests the directory of the path as the shell resolves it, after a cd too", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: { ...project(permissionHook()), "sub/keep.txt": "" },
    model: batches([
      [{ name: "Bash", input: { command: "cd sub" } }],
      [{ name: "Bash", input: { command: "touch made.txt" } }],
    ]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assert(await exists(`${t.cwd}/sub/made.txt`));
    const [cd, touch] = (await readLog(`${t.cwd}/perm.log`)).map((payload) =>
      payload.permission_suggestions as { type: string; directories?: string[] }[]
    );
    // `cd` is no command acceptEdits runs: an allow rule is offered for it.
    assertEquals(cd!.map((suggestion) => suggestion.type), ["addRules"]);
    assertEquals(touch![0]!.directories, [`${t.cwd}/sub`]);
  });
});

Deno.test("PermissionRequest does not fire when nobody would be asked (the policy allows a Read)", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: {
      ...project(permissionHook(decision({ behavior: "deny" })), null),
      "notes.txt": "hello\n",
    },
    model: oneCall("Read", { file_path: "notes.txt" }),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("read") });
    assertEquals(await readLog(`${t.cwd}/perm.log`), []);
    assertEquals((await readLog(`${t.cwd}/post.log`)).length, 1, "the Read ran");
  });
});

Deno.test("PermissionRequest deny with interrupt also ends the turn", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    profile: "claude",
    files: project(permissionHook(decision({
      behavior: "deny",
      message: "stop everything",
      interrupt: true,
    }))),
    model: oneCall("Bash", { command: "echo ran > out.txt" }, requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    const response = await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(response.stopReason, "end_turn");
    assertEquals(response._meta?.hook_stop_reason, "stop everything");
    assertEquals(requests.length, 1, "the model is not called again");
    assertEquals(await exists(`${t.cwd}/out.txt`), false);
  });
});

Deno.test("cancel while a PermissionRequest hook runs: the hook is killed, the turn ends cancelled, nobody is asked, nothing runs", async () => {
  const requests: GenerateRequest[] = [];
  const marker = sleepMarker(30);
  await withInMemoryAgent({
    profile: "claude",
    files: project(hangingHook(marker)),
    model: oneCall("Bash", { command: "touch ran.txt" }, requests),
  }, async (t) => {
    await cancelWhileHanging(t, marker);
    assertEquals(t.permissionRequests.length, 0, "the client is never asked");
    assertEquals(await exists(`${t.cwd}/ran.txt`), false, "the tool did not run");
    assertEquals(requests.length, 1, "the model is not called again");
  });
});

Deno.test("llama profile: PermissionRequest never fires; the client is asked", async () => {
  await withInMemoryAgent({
    files: project(permissionHook(decision({ behavior: "deny" })), null),
    model: oneCall("shell", { command: "echo ran > out.txt" }),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(await readLog(`${t.cwd}/perm.log`), []);
    assertEquals(t.permissionRequests.length, 1);
    assertEquals(await Deno.readTextFile(`${t.cwd}/out.txt`), "ran\n");
  });
});

Deno.test("initialize advertises the events that fire: the claude profile's three extra ones too", async () => {
  for (const [profile, extra] of [["claude", true], ["llama", false]] as const) {
    await withInMemoryAgent({ profile }, async (t) => {
      const answer = await t.agent.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: {},
      });
      const hooks = answer.agentCapabilities?._meta?.["llama-agent/hooks"] as { events: string[] };
      for (const event of ["PermissionRequest", "SessionEnd", "PostToolBatch"]) {
        assertEquals(hooks.events.includes(event), extra, `${profile}: ${event}`);
      }
    });
  }
});
