/**
 * What the editor sees while the model downloads and loads (issue 19 item 2), through a raw ACP
 * client on real stdio: the agent of `fixtures/gated_load_agent.ts`, whose load the test steps
 * through files, so each report is seen before the next one is let through.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { AcpHarness, type AcpResponse, isObject } from "../helpers/acp_harness.ts";
import { REPO_ROOT, withTempProject } from "../helpers/run_cli.ts";
import { writeReplyModel } from "../helpers/test_models.ts";
import { waitUntil } from "../helpers/wait_until.ts";
import { MODEL_LOAD_META_KEY } from "../../src/acp/load_progress.ts";
import { NOTICE_META_KEY } from "../../src/acp/session/hook_notices.ts";
import type { JsonObject } from "../helpers/json_object.ts";

const DENO = `${REPO_ROOT}/node_modules/deno/deno`;
const AGENT = `${REPO_ROOT}/tests/acp/fixtures/gated_load_agent.ts`;
const PROMPT = [{ type: "text", text: "hi" }];

interface Gated {
  readonly agent: AcpHarness;
  readonly project: string;
  readonly home: string;
  /** Lets the load go past a gate: `step_<i>` or `ready`. */
  open(gate: string): Promise<void>;
  /** Resolves once the loader has reported step `index`. */
  reported(index: number): Promise<void>;
  newSession(): Promise<string>;
}

function withGatedAgent(
  env: Readonly<Record<string, string>>,
  fn: (gated: Gated) => Promise<void>,
  clientCapabilities: JsonObject = {},
): Promise<void> {
  return withTempProject(
    { "home/.keep": "", "project/.keep": "", "gates/.keep": "" },
    async (dir) => {
      const project = `${dir}/project`;
      const gates = `${dir}/gates`;
      const agent = await AcpHarness.start({
        command: [
          DENO,
          "run",
          "--quiet",
          "--config",
          `${REPO_ROOT}/deno.json`,
          "--allow-all",
          AGENT,
        ],
        cwd: project,
        home: `${dir}/home`,
        env: { GATED_LOAD_DIR: gates, ...env },
      });
      try {
        await agent.call("initialize", { protocolVersion: 1, clientCapabilities });
        await fn({
          agent,
          project,
          home: `${dir}/home`,
          open: (gate) => Deno.writeTextFile(`${gates}/${gate}`, ""),
          reported: (index) =>
            waitUntil(
              () => existsSync(`${gates}/reported_${index}`),
              `the report of step ${index}`,
            ),
          async newSession() {
            const created = await agent.call("session/new", { cwd: project, mcpServers: [] });
            assert(isObject(created) && typeof created.sessionId === "string");
            return created.sessionId;
          },
        });
        const closed = await agent.close();
        assertEquals(closed.violations, []);
      } finally {
        await agent.close({ allowViolations: true });
      }
    },
  );
}

function existsSync(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The progress shown to a session so far: each plan update's entry texts, `[]` when cleared. */
function planTexts(agent: AcpHarness, sessionId: string): string[][] {
  return agent.sessionUpdates(sessionId).flatMap((update) =>
    update.sessionUpdate === "plan" && Array.isArray(update.entries)
      ? [update.entries.map((entry) => (isObject(entry) ? String(entry.content) : "?"))]
      : []
  );
}

const isNoticeText = (update: JsonObject) =>
  update.sessionUpdate === "agent_message_chunk" && isObject(update._meta) &&
  update._meta[NOTICE_META_KEY] === true;

/** The texts of the marked agent messages a client without notices is told things in. */
function noticeTexts(agent: AcpHarness, sessionId: string): string[] {
  return agent.sessionUpdates(sessionId).filter(isNoticeText).map((update) =>
    isObject(update.content) ? String(update.content.text) : "?"
  );
}

/** The agent text that is not a notice: the model's reply. */
function replyText(agent: AcpHarness, sessionId: string): string {
  return agent.sessionUpdates(sessionId).filter((update) =>
    update.sessionUpdate === "agent_message_chunk" && !isNoticeText(update)
  ).map((update) => isObject(update.content) ? String(update.content.text) : "?").join("");
}

function stopReasonOf(answer: AcpResponse): unknown {
  return isObject(answer.result) ? answer.result.stopReason : answer.error;
}

function waitForPlan(agent: AcpHarness, sessionId: string, text: string): Promise<unknown> {
  return agent.waitFor(
    () => planTexts(agent, sessionId).some((entries) => entries.includes(text)),
    { what: `the progress "${text}"` },
  );
}

Deno.test("a prompt waiting for the model shows the download and load progress as a plan, then takes it away", async () => {
  await withGatedAgent(
    { GATED_LOAD_STEPS: "download:0.1,download:0.42,download:1,load:0.5,load:1" },
    async ({ agent, open, newSession, home, project }) => {
      const sessionId = await newSession();
      const prompt = agent.request("session/prompt", { sessionId, prompt: PROMPT });
      // Nothing reported yet: the user still learns that the model is on its way.
      await waitForPlan(agent, sessionId, "Loading model…");
      const shown = [
        "Downloading model… 10 %",
        "Downloading model… 42 %",
        "Downloading model… 100 %",
        "Loading model… 50 %",
        "Loading model… 100 %",
      ];
      for (const [index, text] of shown.entries()) {
        await open(`step_${index}`);
        await waitForPlan(agent, sessionId, text);
      }
      assertEquals(replyText(agent, sessionId), "", "no reply before the model is there");
      // A client that may not show plans reads the download in words, at each quarter passed
      // (it advertised no notices: as marked agent text, each line a paragraph); the load from
      // disk is the plan's alone.
      assertEquals(noticeTexts(agent, sessionId), [
        "Downloading model… 10 %",
        "\n\nDownloading model… 42 %",
        "\n\nDownloading model… 100 %",
      ]);
      await open("ready");
      assertEquals(stopReasonOf(await prompt), "end_turn");
      // The reply is a paragraph of its own after the last of those lines.
      assertEquals(replyText(agent, sessionId), "\n\nLoaded.");
      assertEquals(planTexts(agent, sessionId), [["Loading model…"], ...shown.map((t) => [t]), []]);

      // Cleared before the model's first word, and every update marked as the load's.
      const updates = agent.sessionUpdates(sessionId);
      const firstText = updates.findIndex((u) =>
        u.sessionUpdate === "agent_message_chunk" && !isNoticeText(u)
      );
      const lastPlan = updates.findLastIndex((u) => u.sessionUpdate === "plan");
      assert(lastPlan < firstText, "the progress ends before the reply starts");
      for (const update of updates.filter((u) => u.sessionUpdate === "plan")) {
        assert(isObject(update._meta) && isObject(update._meta[MODEL_LOAD_META_KEY]));
      }

      // Not the model's words: the transcript holds none of it, and a load replays none.
      const transcript = await Deno.readTextFile(
        `${home}/.local/state/llama-agent/sessions/${sessionId}/raw.jsonl`,
      );
      assert(!transcript.includes("Loading model"), transcript);
      assert(!transcript.includes("Downloading model"), transcript);
      assert(!transcript.includes(MODEL_LOAD_META_KEY), transcript);
      const before = agent.sessionUpdates(sessionId).length;
      await agent.call("session/load", { sessionId, cwd: project, mcpServers: [] });
      const replayed = agent.sessionUpdates(sessionId).slice(before);
      assert(replayed.some((u) => u.sessionUpdate === "agent_message_chunk"), "replayed the reply");
      assertEquals(replayed.filter((u) => u.sessionUpdate === "plan"), []);
    },
  );
});

Deno.test("a client that advertises notices reads the download's steps as notice updates, and no agent text but the reply", async () => {
  await withGatedAgent(
    { GATED_LOAD_STEPS: "download:0,download:0.3,download:0.49,download:0.5,download:1,load:1" },
    async ({ agent, open, newSession }) => {
      const sessionId = await newSession();
      const prompt = agent.request("session/prompt", { sessionId, prompt: PROMPT });
      await waitForPlan(agent, sessionId, "Loading model…");
      for (let index = 0; index < 6; index++) await open(`step_${index}`);
      await open("ready");
      assertEquals(stopReasonOf(await prompt), "end_turn");
      const notices = agent.sessionUpdates(sessionId).filter((u) => u.sessionUpdate === "notice");
      // 49 % is in the quarter 30 % was said in: not said again.
      assertEquals(notices, [
        { sessionUpdate: "notice", severity: "info", title: "Downloading model… 0 %" },
        { sessionUpdate: "notice", severity: "info", title: "Downloading model… 30 %" },
        { sessionUpdate: "notice", severity: "info", title: "Downloading model… 50 %" },
        { sessionUpdate: "notice", severity: "info", title: "Downloading model… 100 %" },
      ]);
      assertEquals(agent.agentText(sessionId), "Loaded.");
      assertEquals(planTexts(agent, sessionId).at(-1), [], "the plan is shown and taken away too");
    },
    { session: { notices: {} } },
  );
});

Deno.test("a prompt cancelled while the model loads answers cancelled at once and stops showing the progress", async () => {
  await withGatedAgent(
    { GATED_LOAD_STEPS: "load:0.3,load:0.6" },
    async ({ agent, open, reported, newSession }) => {
      const first = await newSession();
      const cancelled = agent.request("session/prompt", { sessionId: first, prompt: PROMPT });
      await waitForPlan(agent, first, "Loading model…");
      await agent.notify("session/cancel", { sessionId: first });
      // The load is still held at its first gate: the answer cannot have waited for it.
      assertEquals(stopReasonOf(await cancelled), "cancelled");
      assertEquals(planTexts(agent, first), [["Loading model…"], []]);

      // The load goes on in the background; a later prompt shows where it is, and gets the model.
      await open("step_0");
      await reported(0);
      const second = await newSession();
      const prompt = agent.request("session/prompt", { sessionId: second, prompt: PROMPT });
      await waitForPlan(agent, second, "Loading model… 30 %");
      await open("step_1");
      await waitForPlan(agent, second, "Loading model… 60 %");
      await open("ready");
      assertEquals(stopReasonOf(await prompt), "end_turn");
      assertEquals(agent.agentText(second), "Loaded.");
      assertEquals(planTexts(agent, second), [
        ["Loading model… 30 %"],
        ["Loading model… 60 %"],
        [],
      ]);
      // The cancelled prompt's session saw nothing of the rest of the load.
      assertEquals(planTexts(agent, first), [["Loading model…"], []]);
    },
  );
});

Deno.test("a prompt after the model has loaded shows no progress", async () => {
  await withGatedAgent({}, async ({ agent, open, newSession }) => {
    await open("ready");
    const warm = await newSession();
    await agent.call("session/prompt", { sessionId: warm, prompt: PROMPT });
    const sessionId = await newSession();
    await agent.call("session/prompt", { sessionId, prompt: PROMPT });
    assertEquals(planTexts(agent, sessionId), []);
  });
});

Deno.test("loading a generated GGUF through llama.cpp shows its start and 100 % before the reply", async () => {
  const models = await Deno.makeTempDir({ prefix: "load_progress_gguf_" });
  try {
    const gguf = await writeReplyModel(models, "Hello from the loaded model.");
    await withGatedAgent({ GATED_LOAD_GGUF: gguf }, async ({ agent, open, newSession }) => {
      const sessionId = await newSession();
      const prompt = agent.request("session/prompt", { sessionId, prompt: PROMPT });
      await waitForPlan(agent, sessionId, "Loading model…");
      await open("ready");
      assertEquals(stopReasonOf(await prompt), "end_turn");
      assertEquals(agent.agentText(sessionId), "Hello from the loaded model.");
      const shown = planTexts(agent, sessionId);
      assertEquals(shown[0], ["Loading model…"]);
      assertEquals(shown.at(-2), ["Loading model… 100 %"]);
      assertEquals(shown.at(-1), []);
      assert(shown.some((entries) => entries[0] === "Loading model… 0 %"), JSON.stringify(shown));
    });
  } finally {
    await Deno.remove(models, { recursive: true });
  }
});
