import {
  assert,
  assertEquals,
  assertRejectsWith,
  assertStringIncludes,
} from "../helpers/assert.ts";
import {
  endpointFetch,
  ERROR_BODY_BYTES,
  ResponseTooLarge,
} from "../../src/model/openai/endpoint_fetch.ts";

const BASE = "http://127.0.0.1:9/v1";

/** A `fetch` that answers every request with `response()` and records what it was asked. */
function answering(response: () => Response) {
  const asked: { url: string; init: RequestInit | undefined }[] = [];
  const fetchImpl: typeof fetch = (input, init) => {
    asked.push({ url: String(input), init });
    return Promise.resolve(response());
  };
  return { asked, fetchImpl };
}

function bytes(text: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(text);
}

Deno.test("an error's body is read up to its first 64 KiB, and the rest is not read", async () => {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++;
      controller.enqueue(new Uint8Array(16 * 1024).fill(0x78));
    },
  });
  const { fetchImpl } = answering(() => new Response(body, { status: 500 }));
  const response = await endpointFetch({ baseUrl: BASE, fetch: fetchImpl })(`${BASE}/models`);
  assertEquals((await response.text()).length, ERROR_BODY_BYTES);
  assert(pulled <= ERROR_BODY_BYTES / (16 * 1024) + 2, `pulled ${pulled} chunks`);
});

Deno.test("an event stream's event longer than the limit fails the body; short events pass", async () => {
  const stream = (text: string) =>
    new Response(bytes(text), { headers: { "content-type": "text/event-stream" } });
  const fits = "data: " + "a".repeat(50) + "\n\n" + "data: " + "b".repeat(50) + "\r\n\r\n";
  const small = answering(() => stream(fits));
  const ok = await endpointFetch({ baseUrl: BASE, fetch: small.fetchImpl, maxEventBytes: 100 })(
    `${BASE}/chat/completions`,
    { method: "POST", body: "{}" },
  );
  assertEquals(await ok.text(), fits);

  // Many short lines without the empty line that ends an event are one event still.
  const endless = "data: " + "c".repeat(40) + "\n";
  const big = answering(() => stream(endless.repeat(4)));
  const response = await endpointFetch({ baseUrl: BASE, fetch: big.fetchImpl, maxEventBytes: 100 })(
    `${BASE}/chat/completions`,
    { method: "POST", body: "{}" },
  );
  const error = await assertRejectsWith(() => response.text(), ResponseTooLarge);
  assertStringIncludes(error.message, `The model server at ${BASE} sent a stream event of more`);
});

Deno.test("a body that is no event stream fails past the limit as a whole", async () => {
  const { fetchImpl } = answering(() => Response.json({ data: "x".repeat(500) }));
  const response = await endpointFetch({ baseUrl: BASE, fetch: fetchImpl, maxEventBytes: 100 })(
    `${BASE}/models`,
  );
  await assertRejectsWith(() => response.json(), ResponseTooLarge);
});

Deno.test("a redirect is followed only within the origin, and with the method and body kept", async () => {
  let hop = 0;
  const { asked, fetchImpl } = answering(() =>
    hop++ === 0
      ? new Response(null, { status: 302, headers: { location: "/v1/chat/completions?again" } })
      : Response.json({ ok: true })
  );
  const response = await endpointFetch({ baseUrl: BASE, fetch: fetchImpl })(
    `${BASE}/chat/completions`,
    { method: "POST", body: '{"messages":[]}', headers: { "api-key": "secret" } },
  );
  assertEquals(await response.json(), { ok: true });
  assertEquals(
    asked.map(({ url, init }) => [url, init?.method, init?.body]),
    [
      [`${BASE}/chat/completions`, "POST", '{"messages":[]}'],
      [`${BASE}/chat/completions?again`, "POST", '{"messages":[]}'],
    ],
  );
});
