/**
 * The stdio stream in memory, between byte pipes and a real SDK agent: framing, the order in which
 * messages reach the agent, and what happens when stdin ends.
 */
import * as acp from "@agentclientprotocol/sdk";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { isObject, type JsonObject } from "../helpers/json_object.ts";
import { stdioStream } from "../../src/acp/stdio/stdio_stream.ts";
import {
  connect,
  initialize,
  INITIALIZE_RESPONSE,
  line,
  type Pipes,
  request,
  sleep,
  testAgent,
} from "./stdio_pipes.ts";

/** An agent whose `session/list` is answered only once `release` resolves. */
const heldListAgent = (release: Promise<void>) =>
  testAgent().onRequest("session/list", async () => {
    await release;
    return { sessions: [] };
  });

/** An agent whose `session/list` reads a file from the client and fails with what that gave. */
const readingAgent = () =>
  testAgent().onRequest("session/list", async ({ client }) => {
    try {
      await client.request("fs/read_text_file", { sessionId: "s", path: "/x" });
      return { sessions: [] };
    } catch (error) {
      throw new acp.RequestError(-32603, `Read failed: ${(error as Error).message}`);
    }
  });

/** Waits for the agent's request to the client. */
const agentRequest = (pipes: Pipes, method: string): Promise<JsonObject> =>
  pipes.waitFor((message) => message.method === method, `the agent's "${method}" request`);

Deno.test("a request written with initialize waits for initialize's answer", async () => {
  const app = acp.agent({ name: "test" })
    .onRequest("initialize", async () => {
      await sleep(20);
      return INITIALIZE_RESPONSE;
    })
    .onRequest("session/list", () => ({ sessions: [] }));
  const pipes = connect(app);
  await pipes.write(initialize() + request(2, "session/list"));
  assertEquals((await pipes.answer(2)).result, { sessions: [] });
  assertEquals(pipes.out.map((message) => message.id), [1, 2]);
  await pipes.end();
  await pipes.closed;
});

Deno.test("at EOF every request already read is answered before the connection closes", async () => {
  const app = testAgent()
    .onRequest("session/list", async () => {
      await sleep(30);
      return { sessions: [] };
    });
  const pipes = connect(app);
  await pipes.write(initialize() + request(2, "session/list") + request(3, "session/list"));
  await pipes.end();
  await pipes.closed;
  assertEquals(pipes.out.map((message) => [message.id, "result" in message]), [
    [1, true],
    [2, true],
    [3, true],
  ]);
});

Deno.test("at EOF a running prompt gets session/cancel, and its answer goes out", async () => {
  const cancelled = Promise.withResolvers<void>();
  const app = testAgent()
    .onRequest("session/prompt", async () => {
      await cancelled.promise;
      return { stopReason: "cancelled" as const };
    })
    .onNotification("session/cancel", ({ params }) => {
      if (params.sessionId === "s1") cancelled.resolve();
    });
  const pipes = connect(app);
  await pipes.write(initialize() + request(2, "session/prompt", { sessionId: "s1", prompt: [] }));
  await pipes.end();
  assertEquals((await pipes.answer(2)).result, { stopReason: "cancelled" });
  await pipes.closed;
});

Deno.test("session/cancel reaches the agent while a prompt runs", async () => {
  const cancelled = Promise.withResolvers<void>();
  const app = testAgent()
    .onRequest("session/prompt", async () => {
      await cancelled.promise;
      return { stopReason: "cancelled" as const };
    })
    .onNotification("session/cancel", () => cancelled.resolve());
  const pipes = connect(app);
  await pipes.write(initialize());
  await pipes.answer(1);
  await pipes.write(request(2, "session/prompt", { sessionId: "s1", prompt: [] }));
  await sleep(10);
  await pipes.write(
    line({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "s1" } }),
  );
  assertEquals((await pipes.answer(2)).result, { stopReason: "cancelled" });
  await pipes.end();
  await pipes.closed;
});

Deno.test("at EOF the agent's own requests to the client fail at once", async () => {
  const pipes = connect(readingAgent());
  await pipes.write(initialize());
  await pipes.answer(1);
  await pipes.write(request(2, "session/list"));
  await agentRequest(pipes, "fs/read_text_file");
  await pipes.end();
  const answer = await pipes.answer(2);
  assert(isObject(answer.error), JSON.stringify(answer));
  assertStringIncludes(String(answer.error.message), "the client closed the agent's stdin");
  await pipes.closed;
});

Deno.test("at EOF a request not answered within the limit is answered with an error, once", async () => {
  const release = Promise.withResolvers<void>();
  const pipes = connect(heldListAgent(release.promise), { answerLimitMs: 30 });
  await pipes.write(initialize() + request("slow", "session/list"));
  await pipes.end();
  await pipes.closed;
  release.resolve();
  await sleep(10);
  const answers = pipes.out.filter((message) => message.id === "slow");
  assertEquals(answers.length, 1);
  const [answer] = answers;
  assert(isObject(answer?.error), JSON.stringify(answers));
  assertEquals(answer.error.code, -32603);
  assertStringIncludes(String(answer.error.message), 'Cannot finish "session/list"');
  assertStringIncludes(pipes.log.join("\n"), "1 request(s) were not answered within 30 ms");
});

Deno.test("a line over the limit is answered with its id when its start shows one, else null", async () => {
  const pipes = connect(testAgent(), { maxLineBytes: 200 });
  const pad = "x".repeat(300);
  const tooLong = line({ jsonrpc: "2.0", id: 5, method: "session/prompt", params: { pad } });
  await pipes.write(
    tooLong + line({ jsonrpc: "2.0", method: "session/prompt", params: { pad }, id: 6 }) +
      initialize(7),
  );
  const lineBytes = tooLong.length - 1;
  const withId = await pipes.answer(5);
  assert(isObject(withId.error), JSON.stringify(withId));
  assertEquals(withId.error.code, -32600);
  assertStringIncludes(String(withId.error.message), "over the 200 byte limit");
  assertEquals(withId.error.data, { maxLineBytes: 200, lineBytes });
  const withoutId = await pipes.answer(null);
  assert(isObject(withoutId.error), JSON.stringify(withoutId));
  assertEquals(withoutId.error.code, -32600);
  assert(isObject((await pipes.answer(7)).result));
  assertStringIncludes(
    pipes.log.join("\n"),
    `Discarded a "session/prompt" message of ${lineBytes} bytes`,
  );
  await pipes.end();
  await pipes.closed;
});

Deno.test("a client's answer over the limit fails the agent's request it answers", async () => {
  const pipes = connect(readingAgent(), { maxLineBytes: 200 });
  await pipes.write(initialize() + request(2, "session/list"));
  const asked = await agentRequest(pipes, "fs/read_text_file");
  await pipes.write(line({ jsonrpc: "2.0", id: asked.id, result: { content: "y".repeat(500) } }));
  const answer = await pipes.answer(2);
  assert(isObject(answer.error), JSON.stringify(answer));
  assertStringIncludes(String(answer.error.message), "Read failed: Message too long");
  await pipes.end();
  await pipes.closed;
});

Deno.test("malformed lines are answered and the connection stays up", async () => {
  const pipes = connect(testAgent());
  await pipes.write("{not json\n");
  await pipes.write("[1,2]\n");
  await pipes.write('{"id":3,"method":"initialize"}\n');
  await pipes.write("  \r\n");
  await pipes.write(initialize(4));
  assert(isObject((await pipes.answer(4)).result));
  const errors = pipes.out.filter((message) => isObject(message.error)).map((message) => [
    message.id,
    isObject(message.error) && message.error.code,
  ]);
  assertEquals(errors, [[null, -32700], [null, -32600], [3, -32600]]);
  await pipes.end();
  await pipes.closed;
});

Deno.test("a line that is not UTF-8 is a parse error", async () => {
  const pipes = connect(testAgent());
  await pipes.writeBytes(Uint8Array.of(0x22, 0xc3, 0x28, 0x22, 0x0a));
  const answer = await pipes.answer(null);
  assert(isObject(answer.error), JSON.stringify(answer));
  assertEquals(answer.error.code, -32700);
  assertStringIncludes(String(answer.error.message), "not valid UTF-8");
  await pipes.end();
  await pipes.closed;
});

Deno.test("closing the connection stops reading stdin, even while requests are open", async () => {
  const release = Promise.withResolvers<void>();
  const pipes = connect(heldListAgent(release.promise));
  await pipes.write(initialize() + request(2, "session/list"));
  await pipes.answer(1);
  await pipes.end();
  pipes.connection.close();
  // Reaching here is the test: the close did not wait for the held request.
  await pipes.closed;
  assertEquals(pipes.out.map((message) => message.id), [1], "the held request was not answered");
  release.resolve();
});

Deno.test("a read of 300,000 blank lines and then a message delivers the message", async () => {
  // Far more lines than one read of stdin holds (64 KiB), so far more than the stream could ever
  // meet: the lines of a chunk are taken one by one, never spread into an array or shifted off
  // its front (which overflowed the stack here, and cost each line the lines behind it).
  const blank = 300_000;
  const chunk = new TextEncoder().encode("\n".repeat(blank) + request(1, "session/list"));
  // Nothing answers the request: the stream ends as soon as stdin does.
  const stream = stdioStream(new WritableStream(), ReadableStream.from([chunk]), {
    answerLimitMs: 1,
  });
  const delivered = await Array.fromAsync(stream.readable);
  assertEquals(delivered.map((message) => "method" in message && message.method), ["session/list"]);
});
