import { assertEquals } from "../helpers/assert.ts";
import { readMessageStart } from "../../src/acp/stdio/message_start.ts";

Deno.test("a request's id and method are read from its start", () => {
  assertEquals(
    readMessageStart('{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"s'),
    { id: 7, method: "session/prompt", isResponse: false },
  );
  assertEquals(
    readMessageStart(' { "method" : "x" , "id" : "a\\"b" , "params": ['),
    { id: 'a"b', method: "x", isResponse: false },
  );
});

Deno.test("an id after the params, or cut off, is not read", () => {
  assertEquals(
    readMessageStart('{"jsonrpc":"2.0","method":"session/prompt","params":{"prompt":[{"text":"'),
    { id: undefined, method: "session/prompt", isResponse: false },
  );
  assertEquals(readMessageStart('{"jsonrpc":"2.0","id":12'), {
    id: undefined,
    method: undefined,
    isResponse: false,
  });
  assertEquals(readMessageStart('{"jsonrpc":"2.0","id":"abc'), {
    id: undefined,
    method: undefined,
    isResponse: false,
  });
});

Deno.test("a response is told by its result or error", () => {
  assertEquals(readMessageStart('{"jsonrpc":"2.0","id":3,"result":{"content":"'), {
    id: 3,
    method: undefined,
    isResponse: true,
  });
  assertEquals(readMessageStart('{"id":"r","error":{"code":-1,"message":"'), {
    id: "r",
    method: undefined,
    isResponse: true,
  });
});

Deno.test("what is no JSON object start tells nothing", () => {
  for (const start of ["", "[1,2", "garbage", '{"id":{"x":1},"method":"m"', '{"id":true,']) {
    assertEquals(readMessageStart(start), {
      id: undefined,
      method: undefined,
      isResponse: false,
    }, start);
  }
});
