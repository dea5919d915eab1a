/**
 * A hand-written MCP stdio server that misbehaves in exact, byte-level ways the SDK server never
 * would, for the failure paths of the agent's MCP client. One mode per run:
 *
 * - `refuse-initialize MESSAGE`: answers `initialize` with a JSON-RPC error carrying MESSAGE;
 * - `change-during-connect`: answers the first `tools/list` with `echo` and, in the same write,
 *   says the list changed; later lists add `late`;
 * - `garbage-stdout`: prints a line that is not JSON-RPC and never answers;
 * - `bad-schema`: offers a tool whose `inputSchema` is not an object schema;
 * - `endless-line`: answers `initialize`, then writes one line that never ends.
 *
 * Usage: `deno run tests/mcp/raw_server.ts MODE [ARG]`.
 */

export const RAW_SERVER_PATH = new URL(import.meta.url).pathname;

const [mode, arg] = Deno.args;
const encoder = new TextEncoder();
const write = (...messages: unknown[]) =>
  Deno.stdout.writeSync(encoder.encode(messages.map((m) => JSON.stringify(m) + "\n").join("")));

const ECHO = {
  name: "echo",
  description: "Echoes",
  inputSchema: { type: "object", properties: { text: { type: "string" } } },
};

function answer(id: unknown, result: unknown) {
  return { jsonrpc: "2.0", id, result };
}

function initialized(id: unknown) {
  return answer(id, {
    protocolVersion: "2025-06-18",
    capabilities: { tools: { listChanged: true } },
    serverInfo: { name: "raw", version: "1.0.0" },
  });
}

if (import.meta.main) {
  if (mode === "garbage-stdout") {
    console.log("Server starting... (this line is not JSON-RPC)");
    await new Promise(() => setInterval(() => {}, 60_000));
  }
  let lists = 0;
  let pending = "";
  for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
    pending += chunk;
    let newline: number;
    while ((newline = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line.trim() === "") continue;
      const message = JSON.parse(line) as { id?: unknown; method?: string };
      if (message.id === undefined) continue;
      if (message.method === "initialize") {
        if (mode === "refuse-initialize") {
          write({ jsonrpc: "2.0", id: message.id, error: { code: -32603, message: arg } });
        } else {
          write(initialized(message.id));
        }
        if (mode === "endless-line") {
          // One line that never ends: the client must not hold it all.
          const block = encoder.encode("x".repeat(64 * 1024));
          while (true) Deno.stdout.writeSync(block);
        }
      } else if (message.method === "tools/list") {
        lists++;
        if (mode === "bad-schema") {
          write(answer(message.id, {
            tools: [ECHO, { name: "broken", inputSchema: { type: "string" } }],
          }));
        } else if (mode === "change-during-connect" && lists === 1) {
          write(answer(message.id, { tools: [ECHO] }), {
            jsonrpc: "2.0",
            method: "notifications/tools/list_changed",
          });
        } else {
          write(answer(message.id, {
            tools: [ECHO, { name: "late", inputSchema: { type: "object" } }],
          }));
        }
      } else if (message.method === "tools/call") {
        write(answer(message.id, { content: [{ type: "text", text: "raw answer" }] }));
      } else {
        write({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "no" } });
      }
    }
  }
}
