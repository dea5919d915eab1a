/**
 * SessionStart end to end over real stdio (hooks.md §4, §10): fired once per session id per
 * process, `startup` on session/new and `resume` on session/load (a resume after the load fires
 * nothing), with Claude Code's payload, in the session cwd, HOME and project hooks both, and
 * what it says reaching the model. A scripted model stands in for inference: its prompt token
 * count is the agent's own estimate of everything it was given, the system prompt included.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import type { JsonObject } from "../helpers/acp_harness.ts";
import {
  group,
  hook,
  metaOf,
  noticesOf,
  readHookLog,
  runsOf,
  withHookProject,
} from "./hook_project.ts";
import { textPrompt as text } from "./e2e_project.ts";
import { estimateTextTokens } from "../../src/model/token_estimate.ts";

/** Words as the scripted model counts them (src/model/scripted/scripted_model.ts). */
/** The scripted model counts its prompt with the agent's estimate, so the test does too. */
const tokens = (s: string) => estimateTextTokens(s);

const START_CONTEXT = "remember the e2e marker";

Deno.test("SessionStart: startup on session/new, resume once on session/load, context to the model", async (t) => {
  await withHookProject(async (p) => {
    await p.writeHome({
      settings: { hooks: { SessionStart: [group(undefined, hook("home_start", {}, "$HOME"))] } },
    });
    const startDir = await p.sessionDir("start", {
      settings: {
        hooks: {
          SessionStart: [
            group(undefined, hook("start_ctx")),
            group("resume", hook("start_resume")),
            // The very handler HOME lists: it runs once per firing, not twice.
            group(undefined, hook("home_start", {}, "$HOME")),
          ],
        },
      },
      local: { hooks: { SessionStart: [group("startup", hook("start_local"))] } },
      replies: {
        start_ctx: {
          out: {
            systemMessage: "welcome",
            hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: START_CONTEXT },
          },
        },
        start_resume: { out: "resumed plain text" },
      },
    });
    const plainDir = await p.sessionDir("plain", {});
    const model = await p.scriptedModel([{ text: "Hello." }]);

    const first = await p.startAgent(model);
    const sessionId = await p.newSessionIn(first, startDir);

    await t.step("session/new fires each SessionStart hook once with source startup", async () => {
      const runs = await readHookLog(startDir);
      assertEquals(runs.map((r) => r.tag).toSorted(), ["home_start", "start_ctx", "start_local"]);
      for (const run of runs) assertEquals(run.payload.source, "startup");
    });

    await t.step(
      "a HOME hook and a project hook for the same event both fire; a handler listed in both runs once",
      async () => {
        assertEquals((await runsOf(startDir, "home_start")).length, 1);
        assertEquals((await runsOf(startDir, "start_ctx")).length, 1);
      },
    );

    await t.step(
      "the payload has Claude Code's fields and order, without prompt_id or permission_mode",
      async () => {
        const [run] = await runsOf(startDir, "start_ctx");
        assert(run);
        assertEquals(Object.keys(run.payload), [
          "session_id",
          "transcript_path",
          "cwd",
          "hook_event_name",
          "source",
        ]);
        assertEquals(run.payload.session_id, sessionId);
        assertEquals(run.payload.cwd, startDir);
        assertEquals(run.payload.hook_event_name, "SessionStart");
        assertEquals(
          run.payload.transcript_path,
          `${p.home}/.local/state/llama-agent/sessions/${sessionId}/raw.jsonl`,
        );
        assert(run.transcriptExists, "the transcript exists when the first hook runs");
      },
    );

    await t.step(
      "the hook runs in the session cwd with CLAUDE_PROJECT_DIR and CLAUDE_CODE_SESSION_ID",
      async () => {
        for (const run of await readHookLog(startDir)) {
          assertEquals(run.pwd, startDir);
          assertEquals(run.projectDir, startDir);
          assertEquals(run.envSessionId, sessionId);
        }
      },
    );

    await t.step("systemMessage is shown to the client after the session/new answer", async () => {
      await first.waitFor(() => noticesOf(first, sessionId).length > 0, { what: "the notice" });
      assertEquals(noticesOf(first, sessionId), ["SessionStart says: welcome"]);
      first.assertClean(); // no update before the client knew the session id
    });

    await t.step("SessionStart context is not ignored: it reaches the model", async () => {
      const withContext = metaOf(
        await first.call("session/prompt", { sessionId, prompt: text("hi") }),
      );
      const other = await p.newSessionIn(first, plainDir);
      const without = metaOf(
        await first.call("session/prompt", { sessionId: other, prompt: text("hi") }),
      );
      const added = (withContext.tokens as JsonObject).prompt as number -
        ((without.tokens as JsonObject).prompt as number);
      // The system prompt grew by exactly the §10 line, and the hook's words never went anywhere
      // else: the prompt record is the user's text alone.
      // The line follows the rest of the system prompt after a blank line.
      assertEquals(added, tokens(`\n\nSessionStart hook additional context: ${START_CONTEXT}`));
    });
    await first.close();

    const second = await p.startAgent(model);
    await t.step(
      "session/load in a new process fires SessionStart once with source resume",
      async () => {
        await second.call("session/load", { sessionId, cwd: startDir, mcpServers: [] });
        const resumed = (await readHookLog(startDir)).filter((r) => r.payload.source === "resume");
        assertEquals(resumed.map((r) => r.tag).toSorted(), [
          "home_start",
          "start_ctx",
          "start_resume",
        ]);
        for (const run of resumed) assertEquals(run.payload.session_id, sessionId);
      },
    );

    await t.step(
      "a resume and a second load of the same session in the same process fire nothing",
      async () => {
        const before = (await readHookLog(startDir)).length;
        await second.call("session/resume", { sessionId, cwd: startDir, mcpServers: [] });
        await second.call("session/load", { sessionId, cwd: startDir, mcpServers: [] });
        assertEquals((await readHookLog(startDir)).length, before);
        const startups = (await readHookLog(startDir)).filter((r) =>
          r.payload.source === "startup"
        );
        assertEquals(startups.length, 3, "startup never fires again");
      },
    );
    await second.close();
  });
});
