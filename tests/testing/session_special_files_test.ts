/**
 * Files of a session case's copy that are not regular files (a hook made a FIFO there): what
 * reads them for the case (`expect.files`, the scripted client's `fs`) refuses them, as the
 * agent's own file tools do, instead of waiting for a writer forever.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { runSessionCase } from "../../src/testing/runner/session_case_runner.ts";
import { SessionCase } from "../../src/testing/scenarios/scenario_schema.ts";
import { caseInput, command, hooksSettings, withTempProject } from "./scenario_project.ts";

/** A SessionStart hook makes a FIFO named "pipe" in the copy. */
const MAKES_A_FIFO = {
  ".claude/settings.json": hooksSettings({
    SessionStart: [{ hooks: [command("cat > /dev/null; mkfifo pipe")] }],
  }),
};

Deno.test("expect.files naming a FIFO is the case's error, not a wait", async () => {
  await withTempProject(MAKES_A_FIFO, async (project) => {
    const spec = SessionCase.parse({
      name: "reads a FIFO",
      session: { model: { turns: [{ text: "hi" }] }, prompts: ["hi"] },
      expect: { files: { pipe: "content" } },
    });
    const result = await runSessionCase(caseInput(project, spec));
    assertEquals(result.status, "error");
    assertEquals(
      result.error,
      'Cannot read "pipe" for expect.files: it is a FIFO, not a regular file',
    );
  });
});

Deno.test("the scripted client's fs refuses a FIFO for reading and writing, as the agent's own tools do", async () => {
  await withTempProject(MAKES_A_FIFO, async (project) => {
    const spec = SessionCase.parse({
      name: "client fs on a FIFO",
      session: {
        model: {
          turns: [
            { toolCalls: [{ name: "fs_read", input: { file_path: "pipe" } }] },
            { toolCalls: [{ name: "fs_write", input: { file_path: "pipe", content: "x" } }] },
            { text: "done" },
          ],
        },
        prompts: ["go"],
        client: { fs: true },
      },
      expect: {
        tools: [
          { name: "fs_read", dispatched: true, status: "failed" },
          { name: "fs_write", dispatched: true, status: "failed" },
        ],
        modelSaw: [
          { matches: 'Cannot read "pipe": .*it is not a regular file' },
          { matches: 'Cannot write "pipe": .*it is not a regular file' },
        ],
      },
    });
    const result = await runSessionCase(caseInput(project, spec));
    assert(result.status === "passed", `${result.error ?? ""}${JSON.stringify(result.failures)}`);
  });
});
