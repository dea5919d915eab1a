/**
 * The Claude-format transcript of a session brought back, when it is not a regular file: the
 * real agent over real stdio (`bin/llama-agent acp --compat claude`, a scripted model). A FIFO
 * made `session/load` wait forever, and the agent then ignored its stdin closing; a link to
 * `/dev/zero` took gigabytes in seconds. Now the load answers at once with an error naming the
 * file and why, the agent stays small, and it exits when stdin closes.
 */
import { dirname } from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { isObject } from "../helpers/acp_harness.ts";
import { claudeTranscriptPathFor } from "../../src/agent/transcript/claude_transcript_path.ts";
import { livingPidsMatching } from "../hooks/process_probe.ts";
import { linkToDevZero, makeFifo, releaseFifo } from "../hooks/special_files.ts";
import { INITIALIZE_PARAMS, withScriptedAgent } from "./scripted_agent.ts";

/** Far below the 6.3 GB the unbounded read reached, far above what the agent needs. */
const MAX_PEAK_RSS_BYTES = 1024 ** 3;

const SPECIAL = [
  { kind: "a FIFO", make: makeFifo, reason: "it is a FIFO, not a regular file" },
  {
    kind: "a link to /dev/zero",
    make: linkToDevZero,
    reason: "it is a character device, not a regular file",
  },
] as const;

function peakRssOf(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kib = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
  return kib === undefined ? 0 : Number(kib) * 1024;
}

for (const special of SPECIAL) {
  Deno.test(`session/load whose Claude-format transcript is ${special.kind} answers an error naming it at once, and the agent exits when stdin closes`, async () => {
    await withScriptedAgent({ args: ["--compat", "claude"] }, async ({ agent, project, model }) => {
      await agent.call("initialize", INITIALIZE_PARAMS);
      const created = await agent.call("session/new", { cwd: project, mcpServers: [] });
      assert(isObject(created) && typeof created.sessionId === "string", JSON.stringify(created));
      const sessionId = created.sessionId;
      await agent.call("session/close", { sessionId });
      const path = claudeTranscriptPathFor(`${dirname(project)}/home`, project, sessionId);
      await Deno.remove(path);
      await special.make(path);
      try {
        const started = performance.now();
        const answer = await agent.request(
          "session/load",
          { sessionId, cwd: project, mcpServers: [] },
          { timeoutMs: 15_000 },
        );
        const tookMs = performance.now() - started;
        assert(answer.error !== undefined, `the load succeeded: ${JSON.stringify(answer)}`);
        assertStringIncludes(
          answer.error.message,
          `Cannot read the Claude-format transcript "${path}": ${special.reason}`,
        );
        assert(tookMs < 5_000, `the answer took ${Math.round(tookMs)} ms`);
        const [pid] = await livingPidsMatching(`--model ${model}`);
        assert(pid !== undefined, "the agent is running");
        const peak = peakRssOf(pid);
        assert(peak < MAX_PEAK_RSS_BYTES, `the agent's memory peaked at ${peak} bytes`);
        // The agent goes on: a new session still opens.
        await agent.call("session/new", { cwd: project, mcpServers: [] });
        const { code, signal } = await agent.close({ timeoutMs: 10_000 });
        assertEquals([code, signal], [0, null]);
      } finally {
        // Releases a read stuck in the FIFO's open (the code as it was), so the test can end.
        if (special.kind === "a FIFO") releaseFifo(path);
      }
    });
  });
}
