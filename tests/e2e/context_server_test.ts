/**
 * A session that outgrows its context on a real server: llama-cpp-python's `llama_cpp.server`
 * with a 4096-token context, serving SmolLM2-135M-Instruct under `chatml-function-calling` (whose
 * grammar makes the model call a tool), over real stdio. Each prompt has the model read a
 * numeric file of 2.7 KB; ten of them hold far more than 4096 tokens, so the session lives only
 * if results are budgeted and the conversation compacted on the way.
 */
import { assert } from "../helpers/assert.ts";
import { transcriptPathFor } from "../../src/agent/transcript/transcript_path.ts";
import { estimateTextTokens } from "../../src/model/token_estimate.ts";
import { startLlamaCppServer } from "../helpers/llama_cpp_server.ts";
import { testOnParts } from "../helpers/test_parts.ts";
import { textPrompt as text, withE2eProject } from "./e2e_project.ts";

const CONTEXT = 4096;
const FILE = Array.from({ length: 180 }, (_, i) => `${i * 7919} ${(i * 104729) % 99991}`)
  .join("\n");

testOnParts(
  "llama_cpp.server at 4096 tokens: ten turns of tool output all end without an error, compacted on the way",
  async (parts) => {
    const server = await startLlamaCppServer(parts, {
      contextSize: CONTEXT,
      chatFormat: "chatml-function-calling",
    });
    try {
      await withE2eProject({ "project/data.txt": FILE }, async (p) => {
        const agent = await p.startAgent(server.alias, [
          "--endpoint",
          server.baseUrl,
          "--ctx-size",
          String(CONTEXT),
          "--max-tool-rounds",
          "1",
        ]);
        try {
          const sessionId = await p.newSession(agent);
          const stops: string[] = [];
          for (let turn = 1; turn <= 10; turn++) {
            const answer = await agent.call("session/prompt", {
              sessionId,
              prompt: text(`Use the fs_read tool to read the file data.txt. (${turn})`),
            });
            stops.push(String((answer as { stopReason?: unknown }).stopReason));
          }
          // A cut answer or the round limit ends a turn as it should; an error would have thrown.
          assert(
            stops.every((stop) => ["end_turn", "max_tokens", "max_turn_requests"].includes(stop)),
            stops.join(", "),
          );
          const calls = agent.toolCallUpdates(sessionId)
            .filter((update) => update.sessionUpdate === "tool_call");
          assert(calls.length >= 5, `the model read the file: ${calls.length} calls`);
          const usage = agent.sessionUpdates(sessionId)
            .filter((update) => update.sessionUpdate === "usage_update");
          assert(usage.length >= 10, "the context meter follows the session");
          assert(
            usage.every((update) => Number(update.used) <= CONTEXT && update.size === CONTEXT),
            JSON.stringify(usage.slice(-3)),
          );
          // Which file a 135M model reads, and how much of it its share of the context lets
          // through, is the run's own: what the model was shown of its results (the transcript's
          // tool_call records) is what filled the context, and more of it than the context holds
          // must have been compacted or shortened on the way.
          const transcript = await Deno.readTextFile(
            transcriptPathFor(sessionId, (name) => (name === "HOME" ? p.home : undefined)),
          );
          const records = transcript.trim().split("\n").map((line) => JSON.parse(line));
          const shown = records
            .filter((record) => record.type === "tool_call")
            .reduce((sum, record) => sum + estimateTextTokens(String(record.result)), 0);
          if (shown > CONTEXT) {
            assert(
              records.some((record) => record.type === "conversation"),
              `the model was shown ${shown} tokens of results, and nothing was compacted`,
            );
          }
        } finally {
          await agent.close();
        }
      });
    } catch (error) {
      throw new Error(`${error}\n--- server log ---\n${server.output().slice(-3000)}`);
    } finally {
      await server.stop();
    }
  },
);
