/**
 * Redirects of http hooks, against two real loopback origins (127.0.0.1 and 127.0.0.2): the
 * expanded headers go only to the configured URL's origin. A same-origin redirect is followed
 * (with the fetch rules for method and body); a cross-origin one, and a loop, are non-blocking
 * failures naming where the redirect pointed.
 */
import type { HttpHandlerConfig } from "../../src/hooks/handler_config.ts";
import type { HandlerResult } from "../../src/hooks/handler_result.ts";
import { runHttpHandler } from "../../src/hooks/handlers/http_handler.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { type HookServer, STOP_CONTEXT, STOP_PAYLOAD, withHookServer } from "./http_hook_server.ts";

const payload = STOP_PAYLOAD;
const context = STOP_CONTEXT;
const SECRET_HEADERS = { "X-Api-Key": "$TOKEN", "Authorization": "Bearer $TOKEN" };
const env = { TOKEN: "t0k3n" };

/** A server on `hostname` answering with `respond`, which is also told the server's origin. */
function withOrigin<T>(
  hostname: string,
  respond: (request: Request, origin: string) => Response | Promise<Response>,
  fn: (server: HookServer) => Promise<T>,
): Promise<T> {
  return withHookServer(hostname, (request, { origin }) => respond(request, origin), fn);
}

function redirect(status: number, location: string): Response {
  return new Response("moved", { status, headers: { location } });
}

function http(url: string): HttpHandlerConfig {
  return { type: "http", url, headers: SECRET_HEADERS, allowedEnvVars: ["TOKEN"] };
}

/** Runs the hook at `url`, its secret headers expanded, once. */
function fire(url: string): Promise<HandlerResult> {
  return runHttpHandler(http(url), payload, context, { baseEnv: env });
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
          const result = await fire(url);
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
      const result = await fire(url);
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
        const result = await fire(url);
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
        const result = await fire(`${own.origin}/hook`);
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
    const result = await fire(url);
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
    const result = await fire(`${own.origin}/hook`);
    assertEquals(result.kind === "http" && [result.status, result.body], [302, "no location"]);
  });
});

Deno.test("a Location that is not a URL is a failure naming it", async () => {
  await withOrigin("127.0.0.1", () => redirect(307, "http://[::1"), async (own) => {
    const url = `${own.origin}/hook`;
    const result = await fire(url);
    assertFailed(
      result,
      "network",
      `HTTP hook "${url}" was redirected (307) to an invalid location "http://[::1": not followed`,
    );
  });
});

Deno.test("a redirect to https on the same host is another origin, and is not followed", async () => {
  await withOrigin("127.0.0.1", (_request, origin) => {
    return redirect(307, `${origin.replace("http:", "https:")}/hook`);
  }, async (own) => {
    const url = `${own.origin}/hook`;
    const result = await fire(url);
    assertEquals(own.received.length, 1);
    assertFailed(
      result,
      "network",
      `HTTP hook "${url}" was redirected (307) to another origin ` +
        `"${own.origin.replace("http:", "https:")}": not followed, so its headers are sent only ` +
        `to "${own.origin}"; set "url" to the address that answers`,
    );
  });
});

Deno.test("a same-origin redirect that adds credentials is not followed, and does not echo them", async () => {
  await withOrigin("127.0.0.1", (request, origin) => {
    const { pathname } = new URL(request.url);
    return pathname === "/hook"
      ? redirect(307, origin.replace("http://", "http://intruder:pa55@") + "/final")
      : answer();
  }, async (own) => {
    const url = `${own.origin}/hook`;
    const result = await fire(url);
    // Followed, fetch would have sent "Authorization: Basic <intruder:pa55>" beside the hook's own.
    assertEquals(own.received.map((r) => r.path), ["/hook"]);
    assertFailed(
      result,
      "network",
      `HTTP hook "${url}" was redirected (307) to a location with credentials of its own ` +
        `"${own.origin}/final": not followed; set "url" to the address that answers`,
    );
  });
});

Deno.test("a redirect whose body never ends is still followed: the body is cancelled", async () => {
  let cancelled = false;
  await withOrigin("127.0.0.1", (request) => {
    if (new URL(request.url).pathname !== "/hook") return answer();
    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new Uint8Array(64 * 1024)),
      cancel: () => {
        cancelled = true;
      },
    });
    return new Response(endless, { status: 307, headers: { location: "/final" } });
  }, async (own) => {
    const result = await fire(`${own.origin}/hook`);
    assertEquals(result.kind === "http" && result.status, 200);
    assertEquals(own.received.map((r) => r.path), ["/hook", "/final"]);
  });
  assertEquals(cancelled, true);
});

Deno.test("the hook's timeout covers the whole redirect chain", async () => {
  await withOrigin("127.0.0.1", async (request) => {
    // Each hop takes a third of the timeout: the chain can never reach the hop limit in time.
    await new Promise((resolve) => setTimeout(resolve, 350));
    const hop = Number(new URL(request.url).searchParams.get("hop") ?? "0");
    return redirect(307, `/hook?hop=${hop + 1}`);
  }, async (own) => {
    const url = `${own.origin}/hook`;
    const result = await runHttpHandler({ ...http(url), timeout: 1 }, payload, context, {
      baseEnv: env,
    });
    assertFailed(result, "timeout", `HTTP hook "${url}" did not answer within 1 s`);
    assert(own.received.length < 11, `${own.received.length} hops`);
  });
});

Deno.test("a cancel in the middle of a redirect chain ends it as cancelled", async () => {
  const controller = new AbortController();
  await withOrigin("127.0.0.1", (request) => {
    const hop = Number(new URL(request.url).searchParams.get("hop") ?? "0");
    if (hop === 2) controller.abort();
    return redirect(307, `/hook?hop=${hop + 1}`);
  }, async (own) => {
    const url = `${own.origin}/hook`;
    const result = await runHttpHandler(
      http(url),
      payload,
      { ...context, signal: controller.signal },
      { baseEnv: env },
    );
    assertFailed(result, "cancelled", `HTTP hook "${url}" was cancelled`);
    assertEquals(own.received.length, 3);
  });
});
