import type { HttpHandlerConfig } from "../../src/hooks/handler_config.ts";
import type { HandlerResult } from "../../src/hooks/handler_result.ts";
import { expandHeaderValue } from "../../src/hooks/handlers/hook_headers.ts";
import { runHttpHandler } from "../../src/hooks/handlers/http_handler.ts";
import { assertEquals, assertLess, assertMatch } from "../helpers/assert.ts";
import { type Received, STOP_CONTEXT, STOP_PAYLOAD, withHookServer } from "./http_hook_server.ts";

const payload = STOP_PAYLOAD;
const context = STOP_CONTEXT;

/**
 * A real server on a loopback port, answering with `respond`. Requests still pending when the
 * test ends are released so the server can shut down.
 */
function withServer(
  respond: (request: Request, release: Promise<void>) => Response | Promise<Response>,
  fn: (url: string, received: Received[]) => Promise<void>,
): Promise<void> {
  return withHookServer(
    "127.0.0.1",
    (request, { released }) => respond(request, released),
    ({ origin, received }) => fn(`${origin}/hook`, received),
  );
}

function http(url: string, extra: Partial<HttpHandlerConfig> = {}): HttpHandlerConfig {
  return { type: "http", url, ...extra };
}

function assertFailed(result: HandlerResult) {
  if (result.kind !== "failed") throw new Error(`Expected "failed", got ${JSON.stringify(result)}`);
  return result;
}

Deno.test("the payload is POSTed as JSON, and the status and body come back as they are", async () => {
  await withServer(
    () => Response.json({ decision: "block", reason: "no" }),
    async (url, received) => {
      const result = await runHttpHandler(http(url), payload, context, { baseEnv: {} });
      assertEquals(received.length, 1);
      assertEquals(received[0]?.method, "POST");
      assertEquals(received[0]?.headers.get("content-type"), "application/json");
      assertEquals(received[0]?.body, JSON.stringify(payload));
      assertEquals(result, {
        kind: "http",
        status: 200,
        body: '{"decision":"block","reason":"no"}',
        durationMs: result.durationMs,
      });
    },
  );
});

Deno.test("header values expand only the variables listed in allowedEnvVars", async () => {
  await withServer(() => new Response(null, { status: 204 }), async (url, received) => {
    const handler = http(url, {
      headers: {
        "Authorization": "Bearer $TOKEN",
        "X-Braced": "${TOKEN}-suffix",
        "X-Secret": "[$SECRET][${SECRET}]",
        "X-Unset": "[$ALLOWED_BUT_UNSET]",
      },
      allowedEnvVars: ["TOKEN", "ALLOWED_BUT_UNSET"],
    });
    const result = await runHttpHandler(handler, payload, context, {
      baseEnv: { TOKEN: "t0k3n", SECRET: "s3cret" },
    });
    assertEquals(result.kind, "http");
    const headers = received[0]?.headers;
    assertEquals(headers?.get("authorization"), "Bearer t0k3n");
    assertEquals(headers?.get("x-braced"), "t0k3n-suffix");
    assertEquals(headers?.get("x-secret"), "[][]");
    assertEquals(headers?.get("x-unset"), "[]");
  });
});

Deno.test("a handler's own Content-Type cannot replace application/json", async () => {
  await withServer(() => new Response(null, { status: 204 }), async (url, received) => {
    await runHttpHandler(
      http(url, { headers: { "Content-Type": "text/plain" } }),
      payload,
      context,
    );
    assertEquals(received[0]?.headers.get("content-type"), "application/json");
  });
});

Deno.test("expandHeaderValue leaves text that is not a variable alone", () => {
  assertEquals(expandHeaderValue("$ ${ $1 $$ plain", ["A"], { A: "a" }), "$ ${ $1 $$ plain");
  assertEquals(expandHeaderValue("$A$A${A}x", ["A"], { A: "a" }), "aaax");
});

Deno.test("a non-2xx answer is returned with its status and body", async () => {
  await withServer(() => new Response("boom", { status: 503 }), async (url) => {
    const result = await runHttpHandler(http(url), payload, context, { baseEnv: {} });
    assertEquals(result.kind === "http" && [result.status, result.body], [503, "boom"]);
  });
});

Deno.test("an empty 204 answer has an empty body", async () => {
  await withServer(() => new Response(null, { status: 204 }), async (url) => {
    const result = await runHttpHandler(http(url), payload, context, { baseEnv: {} });
    assertEquals(result.kind === "http" && [result.status, result.body], [204, ""]);
  });
});

Deno.test("a large response body is capped", async () => {
  await withServer(() => new Response("y".repeat(3 * 1024 * 1024)), async (url) => {
    const result = await runHttpHandler(http(url), payload, context, { baseEnv: {} });
    assertEquals(result.kind === "http" && result.body.length, 1024 * 1024);
    const small = await runHttpHandler(http(url), payload, context, { bodyCapBytes: 10 });
    assertEquals(small.kind === "http" && small.body, "yyyyyyyyyy");
  });
});

Deno.test("a server that never answers times out", async () => {
  await withServer(async (_req, release) => {
    await release;
    return new Response("too late");
  }, async (url) => {
    const result = assertFailed(
      await runHttpHandler(http(url, { timeout: 0.2 }), payload, context, { baseEnv: {} }),
    );
    assertEquals(result.failure, "timeout");
    assertEquals(result.message, `HTTP hook "${url}" did not answer within 0.2 s`);
    assertLess(result.durationMs, 1000, "ms to time out");
  });
});

Deno.test("aborting the context signal cancels a pending request", async () => {
  await withServer(async (_req, release) => {
    await release;
    return new Response("too late");
  }, async (url, received) => {
    const controller = new AbortController();
    const pending = runHttpHandler(http(url), payload, { ...context, signal: controller.signal });
    while (received.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const result = assertFailed(await pending);
    assertEquals(result.failure, "cancelled");
  });
});

Deno.test("a refused connection is a network failure", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  const url = `http://127.0.0.1:${port}/hook`;
  const result = assertFailed(await runHttpHandler(http(url), payload, context, { baseEnv: {} }));
  assertEquals(result.failure, "network");
  assertMatch(result.message, /^HTTP hook request to "http:\/\/127\.0\.0\.1:\d+\/hook" failed: /);
});

Deno.test("an injected fetch replaces the network", async () => {
  const calls: string[] = [];
  const fakeFetch = (input: string | URL | Request, init?: RequestInit) => {
    calls.push(`${init?.method} ${input} aborted=${init?.signal?.aborted}`);
    return Promise.resolve(new Response("ok", { status: 201 }));
  };
  const result = await runHttpHandler(http("http://hooks.invalid/x"), payload, context, {
    fetch: fakeFetch,
    baseEnv: {},
  });
  assertEquals(calls, ["POST http://hooks.invalid/x aborted=false"]);
  assertEquals(result.kind === "http" && [result.status, result.body], [201, "ok"]);
});
