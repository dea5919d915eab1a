/**
 * Redirects of http hooks, against two real loopback origins (127.0.0.1 and 127.0.0.2): the
 * expanded headers go only to the configured URL's origin. A same-origin redirect is followed
 * (with the fetch rules for method and body); a cross-origin one, and a loop, are non-blocking
 * failures naming where the redirect pointed.
 */
import type { HttpHandlerConfig } from "../../src/hooks/handler_config.ts";
import type { HandlerResult } from "../../src/hooks/handler_result.ts";
import type { HandlerContext } from "../../src/hooks/handler_runner.ts";
import { runHttpHandler } from "../../src/hooks/http_handler.ts";
import { assertEquals } from "../helpers/assert.ts";

const payload = {
  session_id: "sess-1",
  transcript_path: "/tmp/raw.jsonl",
  cwd: "/project",
  hook_event_name: "Stop",
  stop_hook_active: false,
  last_assistant_message: "done",
};
const context: HandlerContext = { event: "Stop", cwd: "/project", sessionId: "sess-1" };
const SECRET_HEADERS = { "X-Api-Key": "$TOKEN", "Authorization": "Bearer $TOKEN" };
const env = { TOKEN: "t0k3n" };

interface Received {
  readonly method: string;
  readonly path: string;
  readonly headers: Headers;
  readonly body: string;
}

interface Origin {
  /** `http://host:port` */
  readonly origin: string;
  readonly received: Received[];
}

/** A server on `hostname` answering with `respond`; stopped after `fn`. */
async function withOrigin<T>(
  hostname: string,
  respond: (request: Request, origin: string) => Response,
  fn: (origin: Origin) => Promise<T>,
): Promise<T> {
  const received: Received[] = [];
  let origin = "";
  const server = Deno.serve({ hostname, port: 0, onListen: () => {} }, async (request) => {
    received.push({
      method: request.method,
      path: new URL(request.url).pathname + new URL(request.url).search,
      headers: request.headers,
      body: await request.text(),
    });
    return respond(request, origin);
  });
  origin = `http://${hostname}:${server.addr.port}`;
  try {
    return await fn({ origin, received });
  } finally {
    await server.shutdown();
  }
}

function redirect(status: number, location: string): Response {
  return new Response("moved", { status, headers: { location } });
}

function http(url: string): HttpHandlerConfig {
  return { type: "http", url, headers: SECRET_HEADERS, allowedEnvVars: ["TOKEN"] };
}

function assertFailed(result: HandlerResult, failure: string, message: string): void {
  assertEquals(
    result.kind === "failed" ? [result.failure, result.message] : result,
    [failure, message],
  );
}

const answer = () => Response.json({ systemMessage: "hello" });

Deno.test("a redirect to another origin is not followed: its headers never reach it", async () => {
  await withOrigin("127.0.0.2", answer, async (other) => {
    for (const status of [301, 302, 303, 307, 308]) {
      await withOrigin(
        "127.0.0.1",
        () => redirect(status, `${other.origin}/steal`),
        async (own) => {
          const url = `${own.origin}/hook`;
          const result = await runHttpHandler(http(url), payload, context, { baseEnv: env });
          assertEquals(own.received.length, 1, `${status}`);
          assertEquals(own.received[0]?.headers.get("x-api-key"), "t0k3n");
          assertEquals(other.received, [], `${status}: the other origin was reached`);
          assertFailed(
            result,
            "network",
            `HTTP hook "${url}" was redirected (${status}) to another origin "${other.origin}": ` +
              `not followed, so its headers are sent only to "${own.origin}"; set "url" to the ` +
              `address that answers`,
          );
        },
      );
    }
  });
});

Deno.test("another port of the same host is another origin", async () => {
  await withOrigin("127.0.0.1", answer, async (other) => {
    await withOrigin("127.0.0.1", () => redirect(307, `${other.origin}/hook`), async (own) => {
      const url = `${own.origin}/hook`;
      const result = await runHttpHandler(http(url), payload, context, { baseEnv: env });
      assertEquals(other.received, []);
      assertEquals(result.kind === "failed" && result.failure, "network");
    });
  });
});

Deno.test("a same-origin redirect is followed with the headers; 307 and 308 keep POST and the body", async () => {
  for (const status of [307, 308]) {
    await withOrigin(
      "127.0.0.1",
      (request) =>
        new URL(request.url).pathname === "/hook" ? redirect(status, "/final?from=hook") : answer(),
      async (own) => {
        const url = `${own.origin}/hook`;
        const result = await runHttpHandler(http(url), payload, context, { baseEnv: env });
        assertEquals(result.kind === "http" && [result.status, result.body], [
          200,
          '{"systemMessage":"hello"}',
        ]);
        const final = own.received[1];
        assertEquals(own.received.length, 2, `${status}`);
        assertEquals([final?.method, final?.path, final?.body], [
          "POST",
          "/final?from=hook",
          JSON.stringify(payload),
        ]);
        assertEquals(final?.headers.get("x-api-key"), "t0k3n");
        assertEquals(final?.headers.get("authorization"), "Bearer t0k3n");
        assertEquals(final?.headers.get("content-type"), "application/json");
      },
    );
  }
});

Deno.test("a same-origin 301, 302 or 303 after the POST is followed as a GET without the body", async () => {
  for (const status of [301, 302, 303]) {
    await withOrigin(
      "127.0.0.1",
      (request, origin) => request.method === "POST" ? redirect(status, `${origin}/get`) : answer(),
      async (own) => {
        const result = await runHttpHandler(http(`${own.origin}/hook`), payload, context, {
          baseEnv: env,
        });
        assertEquals(result.kind === "http" && result.status, 200, `${status}`);
        const final = own.received[1];
        assertEquals([final?.method, final?.path, final?.body], ["GET", "/get", ""]);
        assertEquals(final?.headers.get("content-type"), null);
        assertEquals(final?.headers.get("x-api-key"), "t0k3n");
      },
    );
  }
});

Deno.test("a redirect loop ends after 10 hops with an error naming the last target", async () => {
  await withOrigin("127.0.0.1", (request) => {
    const hop = Number(new URL(request.url).searchParams.get("hop") ?? "0");
    return redirect(307, `/hook?hop=${hop + 1}`);
  }, async (own) => {
    const url = `${own.origin}/hook`;
    const result = await runHttpHandler(http(url), payload, context, { baseEnv: env });
    assertEquals(own.received.length, 11);
    assertFailed(
      result,
      "network",
      `HTTP hook "${url}" was redirected more than 10 times, last to "${own.origin}/hook?hop=11": ` +
        `not followed further; set "url" to the address that answers`,
    );
  });
});

Deno.test("a redirect status without a Location is an answer like any other", async () => {
  await withOrigin("127.0.0.1", () => new Response("no location", { status: 302 }), async (own) => {
    const result = await runHttpHandler(http(`${own.origin}/hook`), payload, context, {
      baseEnv: env,
    });
    assertEquals(result.kind === "http" && [result.status, result.body], [302, "no location"]);
  });
});

Deno.test("a Location that is not a URL is a failure naming it", async () => {
  await withOrigin("127.0.0.1", () => redirect(307, "http://[::1"), async (own) => {
    const url = `${own.origin}/hook`;
    const result = await runHttpHandler(http(url), payload, context, { baseEnv: env });
    assertFailed(
      result,
      "network",
      `HTTP hook "${url}" was redirected (307) to an invalid location "http://[::1": not followed`,
    );
  });
});
