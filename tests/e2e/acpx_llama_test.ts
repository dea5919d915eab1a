/**
 * The real agent driven by an independent ACP client, acpx, on the real llama path. acpx reports
 * an invalid message from the agent only on its stderr, so every run is checked for that too.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import {
  acpxAgentRequests,
  acpxAgentText,
  acpxStopReason,
  acpxToolCallUpdates,
  assertNoAcpxProtocolErrors,
  describeAcpxRun,
  findNode,
  runAcpx,
} from "../helpers/acpx.ts";
import { LAUNCHER } from "../helpers/run_cli.ts";
import {
  READ_NOTES,
  REPLY_TEXT,
  WRITE_OUT,
  writeReplyModel,
  writeToolCallModel,
} from "../helpers/test_models.ts";
import { type E2eProject, withE2eProject } from "./e2e_project.ts";

const ignore = findNode() === undefined; // acpx runs on Node; the README says to install it

function agentCommand(model: string): string[] {
  return [LAUNCHER, "acp", "--model", model, "--threads", "1", "--gpu", "off"];
}

function acpx(p: E2eProject, model: string, flags: readonly string[], prompt = "go") {
  return runAcpx({ agentCommand: agentCommand(model), cwd: p.cwd, home: p.home, prompt, flags });
}

/** tool_call first, then only updates of announced ids, ending in a final status. */
function assertToolCallSequence(
  updates: readonly Record<string, unknown>[],
  finalStatus: string,
): void {
  assert(
    updates.length >= 2,
    `expected a tool call and its updates, got ${JSON.stringify(updates)}`,
  );
  assertEquals(updates[0]!.sessionUpdate, "tool_call");
  const announced = new Set<unknown>();
  for (const update of updates) {
    if (update.sessionUpdate === "tool_call") announced.add(update.toolCallId);
    else assert(announced.has(update.toolCallId), `update of unannounced ${update.toolCallId}`);
  }
  assertEquals(updates.at(-1)!.status, finalStatus);
}

Deno.test(
  { name: "acpx: a text turn shows the model's exact reply and ends end_turn", ignore },
  async () => {
    await withE2eProject({}, async (p) => {
      const run = await acpx(p, await writeReplyModel(p.models), ["--approve-all"], "hello");
      assertNoAcpxProtocolErrors(run);
      assertEquals(run.code, 0, describeAcpxRun(run));
      assertEquals(acpxAgentText(run), REPLY_TEXT);
      assertEquals(acpxStopReason(run), "end_turn");
    });
  },
);

Deno.test(
  { name: "acpx --approve-all: fs_read through the client's fs, then the answer", ignore },
  async () => {
    await withE2eProject({ "project/notes.txt": "buy milk\n" }, async (p) => {
      const run = await acpx(p, await writeToolCallModel(p.models, READ_NOTES), ["--approve-all"]);
      assertNoAcpxProtocolErrors(run);
      assertEquals(run.code, 0, describeAcpxRun(run));
      assertToolCallSequence(acpxToolCallUpdates(run), "completed");
      assertEquals(
        acpxAgentRequests(run, "fs/read_text_file").length,
        1,
        "read through the client",
      );
      assertEquals(acpxAgentText(run), READ_NOTES.answer);
      assertEquals(acpxStopReason(run), "end_turn");
    });
  },
);

Deno.test(
  { name: "acpx --deny-all: the write is refused, never runs, and acpx exits 5", ignore },
  async () => {
    await withE2eProject({}, async (p) => {
      const run = await acpx(p, await writeToolCallModel(p.models, WRITE_OUT), ["--deny-all"]);
      assertNoAcpxProtocolErrors(run);
      assertEquals(run.code, 5, describeAcpxRun(run));
      assertEquals(acpxAgentRequests(run, "session/request_permission").length, 1);
      assertEquals(acpxAgentRequests(run, "fs/write_text_file").length, 0);
      assertToolCallSequence(acpxToolCallUpdates(run), "failed");
      assertEquals(await Deno.stat(`${p.cwd}/out.txt`).then(() => true, () => false), false);
    });
  },
);

Deno.test(
  { name: "acpx --no-fs: files are read locally, inside the allowed roots", ignore },
  async () => {
    await withE2eProject({ "project/notes.txt": "buy milk\n" }, async (p) => {
      const run = await acpx(p, await writeToolCallModel(p.models, READ_NOTES), [
        "--approve-all",
        "--no-fs",
      ]);
      assertNoAcpxProtocolErrors(run);
      assertEquals(run.code, 0, describeAcpxRun(run));
      assertEquals(acpxAgentRequests(run, "fs/read_text_file").length, 0);
      const updates = acpxToolCallUpdates(run);
      assertToolCallSequence(updates, "completed");
      assertStringIncludes(JSON.stringify(updates.at(-1)!.content), "buy milk");
    });
  },
);

Deno.test(
  { name: "acpx --no-terminal: shell runs locally in its own process group", ignore },
  async () => {
    await withE2eProject({}, async (p) => {
      const model = await writeToolCallModel(p.models, {
        toolName: "shell",
        params: { command: "echo shell-says-$((6*7))" },
        answer: "ran it",
      });
      const run = await acpx(p, model, ["--approve-all", "--no-terminal"]);
      assertNoAcpxProtocolErrors(run);
      assertEquals(run.code, 0, describeAcpxRun(run));
      assertEquals(acpxAgentRequests(run, "terminal/create").length, 0);
      const updates = acpxToolCallUpdates(run);
      assertToolCallSequence(updates, "completed");
      assertStringIncludes(JSON.stringify(updates.at(-1)!.content), "shell-says-42");
      assertEquals(acpxAgentText(run), "ran it");
    });
  },
);

Deno.test(
  { name: "acpx with a terminal: shell runs in the client's terminal", ignore },
  async () => {
    await withE2eProject({}, async (p) => {
      const model = await writeToolCallModel(p.models, {
        toolName: "shell",
        params: { command: "echo in-terminal" },
        answer: "ran it",
      });
      const run = await acpx(p, model, ["--approve-all"]);
      assertNoAcpxProtocolErrors(run);
      assertEquals(run.code, 0, describeAcpxRun(run));
      assertEquals(acpxAgentRequests(run, "terminal/create").length, 1);
      const updates = acpxToolCallUpdates(run);
      assertToolCallSequence(updates, "completed");
      assertStringIncludes(JSON.stringify(updates), '"type":"terminal"');
    });
  },
);
