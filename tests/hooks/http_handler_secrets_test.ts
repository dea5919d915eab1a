/**
 * What an http hook sends in its headers (variables expanded from the environment) never shows in
 * what it reports: a value `fetch` would refuse, quoting it whole, is refused first naming the
 * header and the variable; every message is redacted; and the server's words (a `Location`, an
 * error) are cut. Against real loopback servers (127.0.0.1 and 127.0.0.2).
 */
import type { HttpHandlerConfig } from "../../src/hooks/handler_config.ts";
import type { HandlerResult } from "../../src/hooks/handler_result.ts";
import { runHttpHandler } from "../../src/hooks/handlers/http_handler.ts";
import { SERVER_TEXT_LIMIT } from "../../src/secret_redactor.ts";
import { assert, assertEquals, assertLess } from "../helpers/assert.ts";
import { STOP_CONTEXT, STOP_PAYLOAD, withHookServer } from "./http_hook_server.ts";

const TOKEN = "tok-0123456789abcdef";

function http(url: string, extra: Partial<HttpHandlerConfig> = {}): HttpHandlerConfig {
  return {
    type: "http",
    url,
    headers: { "Authorization": "Bearer $TOKEN" },
    allowedEnvVars: ["TOKEN"],
    ...extra,
  };
}

function fire(
  handler: HttpHandlerConfig,
  env: Record<string, string>,
  fetchImpl?: typeof fetch,
): Promise<HandlerResult> {
  return runHttpHandler(handler, STOP_PAYLOAD, STOP_CONTEXT, { baseEnv: env, fetch: fetchImpl });
}

/** The failure's code and message, checked to hold no part of `secret` worth finding. */
function failure(result: HandlerResult, secret = TOKEN): [string, string] {
  if (result.kind !== "failed") throw new Error(`Expected "failed", got ${JSON.stringify(result)}`);
  assert(!result.message.includes(secret.slice(4, 12)), `the secret leaked: ${result.message}`);
  return [result.failure, result.message];
}

function withServer<T>(
  hostname: string,
  respond: (request: Request, origin: string) => Response | Promise<Response>,
  fn: (origin: string, received: () => number) => Promise<T>,
): Promise<T> {
  return withHookServer(
    hostname,
    (request, { origin }) => respond(request, origin),
    ({ origin, received }) => fn(origin, () => received.length),
  );
}

const noContent = () => new Response(null, { status: 204 });

Deno.test("a variable with a line break inside refuses the run, naming the header and the variable, never the value", async () => {
  await withServer("127.0.0.1", noContent, async (origin, received) => {
    const url = `${origin}/hook`;
    for (const pasted of [`${TOKEN}\r\nX-Injected: 1`, `abc\n${TOKEN}`]) {
      const result = await fire(http(url), { TOKEN: pasted });
      const at = pasted.search(/[\r\n]/) + 1;
      assertEquals(failure(result), [
        "invalid_header",
        `HTTP hook "${url}" cannot send header "Authorization": the value of $TOKEN holds a ` +
        `line break at character ${at} (was it pasted with its newline?): remove it and export ` +
        "the value again",
      ]);
    }
    assertEquals(received(), 0, "nothing is sent");
  });
});

Deno.test("a variable that ends in a line break inside a value is refused; at the value's end fetch trims it", async () => {
  await withServer("127.0.0.1", noContent, async (origin, received) => {
    const url = `${origin}/hook`;
    const inside = await fire(http(url, { headers: { "X-Key": "${TOKEN};v=1" } }), {
      TOKEN: `${TOKEN}\n`,
    });
    assertEquals(failure(inside), [
      "invalid_header",
      `HTTP hook "${url}" cannot send header "X-Key": the value of $TOKEN holds a line break at ` +
      "its end (was it pasted with its newline?): remove it and export the value again",
    ]);
    assertEquals(received(), 0);

    const atEnd = await fire(http(url), { TOKEN: `${TOKEN}\r\n` });
    assertEquals(atEnd.kind === "http" && atEnd.status, 204);
    assertEquals(received(), 1);
  });
});

Deno.test("a control character or one beyond Latin-1 in a variable is refused; a tab and Latin-1 are sent", async () => {
  await withHookServer("127.0.0.1", noContent, async ({ origin, received }) => {
    const url = `${origin}/hook`;
    const control = await fire(http(url), { TOKEN: `${TOKEN}\x01x` });
    assertEquals(failure(control), [
      "invalid_header",
      `HTTP hook "${url}" cannot send header "Authorization": the value of $TOKEN holds a ` +
      `control character at character ${TOKEN.length + 1}: remove it and export the value again`,
    ]);
    const wide = await fire(http(url), { TOKEN: `${TOKEN}\u2603` });
    assertEquals(failure(wide), [
      "invalid_header",
      `HTTP hook "${url}" cannot send header "Authorization": the value of $TOKEN holds a ` +
      "character beyond Latin-1 at its end, which a header cannot carry: check the value",
    ]);
    assertEquals(received.length, 0);

    const sent = await fire(http(url), { TOKEN: `${TOKEN}\tJos\u00e9` });
    assertEquals(sent.kind === "http" && sent.status, 204);
    assertEquals(received[0]?.headers.get("authorization"), `Bearer ${TOKEN}\tJos\u00e9`);
  });
});

Deno.test("a control character written in the settings is refused, naming the settings", async () => {
  await withServer("127.0.0.1", noContent, async (origin, received) => {
    const url = `${origin}/hook`;
    const result = await fire(http(url, { headers: { "X-Key": "$TOKEN\u0000x" } }), { TOKEN });
    assertEquals(failure(result), [
      "invalid_header",
      `HTTP hook "${url}" cannot send header "X-Key": its value in the settings holds a control ` +
      "character at character 7: remove it from the settings",
    ]);
    const named = await fire(http(url, { headers: { "X Key": "$TOKEN" } }), { TOKEN });
    assertEquals(failure(named), [
      "invalid_header",
      `HTTP hook "${url}" cannot send header "X Key": a header name is letters, digits and "-" ` +
      '(no spaces or ":"): fix it in the settings',
    ]);
    assertEquals(received(), 0);
  });
});

Deno.test("an error from fetch is quoted with the header values redacted and cut", async () => {
  const echoing: typeof fetch = (_input, init) => {
    const sent = new Headers(init?.headers).get("authorization");
    return Promise.reject(new TypeError(`refused "${sent}" ${"x".repeat(5000)}`));
  };
  const url = "http://127.0.0.1:9/hook";
  const result = await fire(http(url), { TOKEN }, echoing);
  const [code, message] = failure(result);
  assertEquals(code, "network");
  const quoted = `refused "[redacted]" ${"x".repeat(5000)}`;
  assertEquals(
    message,
    `HTTP hook request to "${url}" failed: ${quoted.slice(0, SERVER_TEXT_LIMIT)}... ` +
      `(${quoted.length - SERVER_TEXT_LIMIT} more characters)`,
  );
});

Deno.test("a password in the hook's URL is redacted from its messages", async () => {
  const password = "pa55w0rd-of-the-hook";
  const url = `http://hook:${password}@127.0.0.1:9/hook`;
  const down: typeof fetch = () => Promise.reject(new TypeError(`cannot reach ${url}`));
  const [, message] = failure(await fire(http(url), { TOKEN }, down), password);
  assertEquals(
    message,
    'HTTP hook request to "http://hook:[redacted]@127.0.0.1:9/hook" failed: cannot reach ' +
      "http://hook:[redacted]@127.0.0.1:9/hook",
  );
});

Deno.test("a redirect to another origin with a 5 KB Location is named in a capped message", async () => {
  const host = `${"a".repeat(5000)}.invalid`;
  await withServer("127.0.0.1", () => redirect(307, `http://${host}/steal`), async (origin) => {
    const url = `${origin}/hook`;
    const [code, message] = failure(await fire(http(url), { TOKEN }));
    assertEquals(code, "network");
    const named = `http://${host}`;
    assertEquals(
      message,
      `HTTP hook "${url}" was redirected (307) to another origin ` +
        `"${named.slice(0, SERVER_TEXT_LIMIT)}... (${named.length - SERVER_TEXT_LIMIT} more ` +
        `characters)": not followed, so its headers are sent only to "${origin}"; set "url" ` +
        "to the address that answers",
    );
    assertLess(message.length, 700);
  });
});

Deno.test("a Location that repeats a header's value is quoted redacted and cut", async () => {
  await withServer("127.0.0.1", (request) => {
    const sent = request.headers.get("authorization") ?? "";
    return redirect(307, `http://[::1/${encodeURI(sent)}?${"q".repeat(5000)}`);
  }, async (origin) => {
    const url = `${origin}/hook`;
    const [code, message] = failure(await fire(http(url), { TOKEN }));
    assertEquals(code, "network");
    const location = `http://[::1/Bearer%20${TOKEN}?${"q".repeat(5000)}`;
    assert(message.startsWith(`HTTP hook "${url}" was redirected (307) to an invalid location "`));
    assert(message.includes(`http://[::1/Bearer%20[redacted]?qqq`), message);
    assert(message.endsWith(' more characters)": not followed'), message);
    assertLess(message.length, location.length);
  });
});

Deno.test("an error answer that repeats the token has it redacted; a 2xx answer is the hook's output as it is", async () => {
  await withServer("127.0.0.1", (request) => {
    const sent = request.headers.get("authorization") ?? "";
    const status = new URL(request.url).pathname === "/ok" ? 200 : 401;
    return Response.json({ systemMessage: `you sent ${sent}` }, { status });
  }, async (origin) => {
    const refused = await fire(http(`${origin}/hook`), { TOKEN });
    assertEquals(
      refused.kind === "http" && [refused.status, refused.body],
      [401, '{"systemMessage":"you sent [redacted]"}'],
    );
    const answered = await fire(http(`${origin}/ok`), { TOKEN });
    assertEquals(
      answered.kind === "http" && [answered.status, answered.body],
      [200, `{"systemMessage":"you sent Bearer ${TOKEN}"}`],
    );
  });
});

Deno.test("an error answer cut at the cap loses the start of a token it was cut inside", async () => {
  await withServer("127.0.0.1", (request) => {
    const sent = request.headers.get("authorization") ?? "";
    return new Response(`${"x".repeat(90)}${sent}`, { status: 500 });
  }, async (origin) => {
    const handler = http(`${origin}/hook`);
    const result = await runHttpHandler(handler, STOP_PAYLOAD, STOP_CONTEXT, {
      baseEnv: { TOKEN },
      bodyCapBytes: 90 + "Bearer tok-01".length,
    });
    assertEquals(result.kind === "http" && [result.status, result.body], [500, "x".repeat(90)]);
  });
});

function redirect(status: number, location: string): Response {
  return new Response("moved", { status, headers: { location } });
}
