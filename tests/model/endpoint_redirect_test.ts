/**
 * A model server's redirect never takes the key, the custom headers or the conversation to
 * another origin: every request of the endpoint backend (the listing, a chat) follows redirects
 * within the endpoint's origin only, and keeps its method and body there.
 */
import {
  assert,
  assertEquals,
  assertRejectsWith,
  assertStringIncludes,
} from "../helpers/assert.ts";
import { textReply } from "../helpers/openai_dialects.ts";
import { type FakeServer, startFakeServer } from "../helpers/openai_fake_server.ts";
import { openEndpointModel } from "../../src/model/openai/openai_model.ts";
import type { GenerateRequest } from "../../src/model/model.ts";
import { AgentError } from "../../src/error.ts";

const KEY = "sk-redirect-test-0123456789";
const HEADER_SECRET = "custom-header-secret-42";

/** The endpoint on `server`, with a key and `OPENAI_CUSTOM_HEADERS` (read from the process). */
async function withSecrets(fn: (env: (name: string) => string | undefined) => Promise<void>) {
  const headers = `api-key: ${HEADER_SECRET}`;
  const before = Deno.env.get("OPENAI_CUSTOM_HEADERS");
  Deno.env.set("OPENAI_CUSTOM_HEADERS", headers);
  try {
    await fn((name) =>
      ({ MY_KEY: KEY, OPENAI_CUSTOM_HEADERS: headers } as Record<string, string>)[name]
    );
  } finally {
    if (before === undefined) Deno.env.delete("OPENAI_CUSTOM_HEADERS");
    else Deno.env.set("OPENAI_CUSTOM_HEADERS", before);
  }
}

async function withTwoServers(
  fn: (own: FakeServer, other: FakeServer) => Promise<void>,
): Promise<void> {
  const own = startFakeServer();
  const other = startFakeServer();
  try {
    await fn(own, other);
  } finally {
    await own.close();
    await other.close();
  }
}

function ask(text: string): GenerateRequest {
  return {
    conversation: [{ role: "user", text }],
    tools: [],
    signal: new AbortController().signal,
    onTextChunk: () => {},
    onThoughtChunk: () => {},
  };
}

Deno.test("a chat request redirected to another origin is refused, naming the redirect; that origin sees no request and no header", async () => {
  await withSecrets(async (env) => {
    for (const status of [301, 302, 303, 307, 308]) {
      await withTwoServers(async (own, other) => {
        const location = `${other.origin}/v1/chat/completions`;
        own.reply({ kind: "redirect", status, location });
        const model = await openEndpointModel({ baseUrl: own.baseUrl, apiKeyEnv: "MY_KEY", env });
        const session = await model.openSession();
        const error = await assertRejectsWith(
          () => session.generate(ask("the whole conversation")),
          AgentError,
        );
        assertEquals(error.code, "MODEL_SERVER");
        assertStringIncludes(
          error.message,
          `The model server at ${own.baseUrl} (POST /v1/chat/completions) was redirected ` +
            `(${status}) to another origin "${other.origin}": not followed, so the request, its ` +
            `key and its headers are sent only to "${own.origin}"; pass --endpoint the address ` +
            "that answers",
        );
        assertEquals(other.received.length, 0, `${status} reached the other origin`);
        // The request did carry both to its own origin: what was kept from the other is real.
        const sent = own.received.at(-1)!.headers;
        assertEquals([sent.get("authorization"), sent.get("api-key")], [
          `Bearer ${KEY}`,
          HEADER_SECRET,
        ]);
        assert(!error.message.includes(KEY) && !error.message.includes(HEADER_SECRET));
      });
    }
  });
});

Deno.test("the model listing redirected to another origin fails at start, naming the redirect, and sends nothing there", async () => {
  await withSecrets(async (env) => {
    const other = startFakeServer();
    const own = startFakeServer({
      modelsRedirect: { status: 307, location: `${other.origin}/v1/models` },
    });
    try {
      const error = await assertRejectsWith(
        () => openEndpointModel({ baseUrl: own.baseUrl, apiKeyEnv: "MY_KEY", env }),
        AgentError,
      );
      assertStringIncludes(
        error.message,
        `(GET /v1/models) was redirected (307) to another origin "${other.origin}": not followed`,
      );
      assertEquals(other.received.length, 0);
    } finally {
      await own.close();
      await other.close();
    }
  });
});

Deno.test("a same-origin 302 is followed with the POST and its body, not turned into a GET", async () => {
  await withTwoServers(async (own, other) => {
    own.reply(
      { kind: "redirect", status: 302, location: "/v1/chat/completions" },
      { kind: "stream", chunks: textReply("answered after the hop") },
    );
    const model = await openEndpointModel({ baseUrl: own.baseUrl, env: () => undefined });
    const result = await (await model.openSession()).generate(ask("hello"));
    assertEquals(result.text, "answered after the hop");
    const chats = own.received.filter((r) => r.path === "/v1/chat/completions");
    assertEquals(chats.map((r) => r.method), ["POST", "POST"]);
    assertEquals(own.requests.map((body) => body.messages), [
      [{ role: "user", content: "hello" }],
      [{ role: "user", content: "hello" }],
    ]);
    assertEquals(other.received.length, 0);
  });
});
