/**
 * The MCP server the tests and the benchmark talk to, built on the official server SDK so that
 * what llama-agent meets is a real, conforming server. Its tools:
 *
 * - `echo {text}` answers `echo: <text>`;
 * - `slow {ms}` answers after `ms` milliseconds, or when the call is cancelled;
 * - `fail {message?}` answers with an error result (`isError: true`);
 * - `crash` exits the process in the middle of the call (code 7);
 * - `grow` adds a tool named `late` and says the tool list changed;
 * - `big {chars}` answers with a text of that many characters.
 *
 * Usage: `deno run --allow-all tests/mcp/fixture_server.ts [options]`
 *   --http                  serve Streamable HTTP on 127.0.0.1 (a free port); the first line on
 *                           stdout is `{"url": "..."}`
 *   --require-header N:V    (HTTP) answer 401 to a request without this header
 *   --child                 start a child shell first (`sleep 600; : <marker>`), in the same
 *                           process group, as servers started through a shell or npx do
 *   --log FILE              append each tool call to FILE as a JSON line `{"tool", "arguments"}`
 *   --extra-tool NAME       also offer a tool of this name that answers its own name (repeatable)
 *   --hang                  never answer: start, then do nothing
 *   --exit-at-start         write a reason on stderr and exit with code 3 before answering
 *   --marker WORD           ignored; lets a test find this process by its command line
 */
import { McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

export const FIXTURE_SERVER_PATH = new URL(import.meta.url).pathname;

interface Options {
  http: boolean;
  requiredHeader: [string, string] | undefined;
  child: boolean;
  hang: boolean;
  exitAtStart: boolean;
  marker: string;
  log: string | undefined;
  extraTools: string[];
}

function parseOptions(args: readonly string[]): Options {
  const options: Options = {
    http: false,
    requiredHeader: undefined,
    child: false,
    hang: false,
    exitAtStart: false,
    marker: "",
    log: undefined,
    extraTools: [],
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--http") options.http = true;
    else if (arg === "--child") options.child = true;
    else if (arg === "--hang") options.hang = true;
    else if (arg === "--exit-at-start") options.exitAtStart = true;
    else if (arg === "--marker") options.marker = args[++i] ?? "";
    else if (arg === "--log") options.log = args[++i];
    else if (arg === "--extra-tool") options.extraTools.push(args[++i] ?? "");
    else if (arg === "--require-header") {
      const [name, ...value] = (args[++i] ?? "").split(":");
      options.requiredHeader = [name ?? "", value.join(":")];
    } else throw new Error(`fixture server: unknown option ${arg}`);
  }
  return options;
}

function fixtureServer(options: Options): McpServer {
  const server = new McpServer({ name: "fixture", version: "1.0.0" });
  const logCall = (tool: string, args: unknown) => {
    if (options.log === undefined) return;
    Deno.writeTextFileSync(options.log, JSON.stringify({ tool, arguments: args }) + "\n", {
      append: true,
    });
  };
  server.registerTool("echo", {
    description: "Echoes the text back",
    inputSchema: z.object({ text: z.string().describe("What to echo") }),
  }, ({ text }) => {
    logCall("echo", { text });
    return { content: [{ type: "text", text: `echo: ${text}` }] };
  });
  server.registerTool("slow", {
    description: "Answers after a delay",
    inputSchema: z.object({ ms: z.number().describe("How long to wait, in milliseconds") }),
  }, async ({ ms }, ctx) => {
    logCall("slow", { ms });
    const signal = ctx.mcpReq.signal;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
    const text = signal.aborted ? "cancelled" : `slept ${ms} ms`;
    return { content: [{ type: "text", text }] };
  });
  server.registerTool("fail", {
    description: "Always fails",
    inputSchema: z.object({ message: z.string().optional() }),
  }, ({ message }) => {
    logCall("fail", { message });
    return {
      isError: true,
      content: [{ type: "text", text: message ?? "the fail tool failed, as it always does" }],
    };
  });
  server.registerTool("crash", {
    description: "Exits the server in the middle of the call",
    inputSchema: z.object({}),
  }, () => {
    logCall("crash", {});
    console.error("fixture: crashing on purpose");
    Deno.exit(7);
  });
  server.registerTool("big", {
    description: "Answers with a long text",
    inputSchema: z.object({ chars: z.number() }),
  }, ({ chars }) => ({ content: [{ type: "text", text: "x".repeat(chars) }] }));
  for (const name of options.extraTools) {
    server.registerTool(
      name,
      { description: `The tool ${name}`, inputSchema: z.object({}) },
      () => ({
        content: [{ type: "text", text: `ran ${name}` }],
      }),
    );
  }
  server.registerTool("grow", {
    description: "Adds a tool named late",
    inputSchema: z.object({}),
  }, () => {
    logCall("grow", {});
    server.registerTool("late", {
      description: "A tool added during the session",
      inputSchema: z.object({}),
    }, () => ({ content: [{ type: "text", text: "late tool ran" }] }));
    server.sendToolListChanged();
    return { content: [{ type: "text", text: "added the late tool" }] };
  });
  return server;
}

async function serveHttp(options: Options): Promise<void> {
  // One transport per MCP session, as a stateful Streamable HTTP server keeps them.
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => console.log(JSON.stringify({ url: `http://127.0.0.1:${port}/mcp` })),
  }, async (request) => {
    const [name, value] = options.requiredHeader ?? [];
    if (name !== undefined && request.headers.get(name) !== value) {
      return new Response("missing or wrong header", { status: 401 });
    }
    const id = request.headers.get("mcp-session-id");
    let transport = id === null ? undefined : sessions.get(id);
    if (!transport) {
      if (id !== null) return new Response("unknown session", { status: 404 });
      transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport!),
        onsessionclosed: (sessionId) => void sessions.delete(sessionId),
      });
      await fixtureServer(options).connect(transport);
    }
    return await transport.handleRequest(request);
  });
  await server.finished;
}

if (import.meta.main) {
  const options = parseOptions(Deno.args);
  if (options.child) {
    new Deno.Command("/bin/sh", { args: ["-c", `sleep 600; : ${options.marker}`], stdin: "null" })
      .spawn();
  }
  if (options.exitAtStart) {
    console.error("fixture: told to exit at start");
    Deno.exit(3);
  }
  if (options.hang) await new Promise(() => setInterval(() => {}, 60_000));
  if (options.http) await serveHttp(options);
  else await fixtureServer(options).connect(new StdioServerTransport());
}
