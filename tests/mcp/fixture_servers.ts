/**
 * The fixture MCP server (fixture_server.ts) as a test needs it: an ACP `mcpServers` entry that
 * starts it over stdio, or a running Streamable HTTP instance on loopback.
 */
import type { McpServer } from "@agentclientprotocol/sdk";
import { FIXTURE_SERVER_PATH } from "./fixture_server.ts";

/** The fixture's tools as the model is offered them, in the order the server lists them. */
export const FIXTURE_TOOL_NAMES: readonly string[] = [
  "mcp__fixture__echo",
  "mcp__fixture__slow",
  "mcp__fixture__fail",
  "mcp__fixture__crash",
  "mcp__fixture__big",
  "mcp__fixture__grow",
];

const DENO_CONFIG = new URL("../../deno.json", import.meta.url).pathname;

/** The command line that starts the fixture server with `args`. */
export function fixtureCommand(args: readonly string[] = []): { command: string; args: string[] } {
  return {
    command: Deno.execPath(),
    args: ["run", "--allow-all", "--config", DENO_CONFIG, FIXTURE_SERVER_PATH, ...args],
  };
}

/** An ACP stdio entry for the fixture server. */
export function stdioFixture(
  options: { readonly name?: string; readonly args?: readonly string[] } = {},
): McpServer {
  return { name: options.name ?? "fixture", ...fixtureCommand(options.args), env: [] };
}

export interface HttpFixture extends AsyncDisposable {
  readonly url: string;
  readonly pid: number;
  /** An ACP http entry for this server. */
  entry(options?: { name?: string; headers?: Record<string, string> }): McpServer;
}

/** Starts the fixture server on a free loopback port; disposing it stops it. */
export async function startHttpFixture(args: readonly string[] = []): Promise<HttpFixture> {
  const { command, args: fullArgs } = fixtureCommand(["--http", ...args]);
  const child = new Deno.Command(command, {
    args: fullArgs,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  while (!buffered.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) throw new Error("The HTTP fixture server exited before it printed its URL");
    buffered += value;
  }
  const { url } = JSON.parse(buffered.slice(0, buffered.indexOf("\n"))) as { url: string };
  return {
    url,
    pid: child.pid,
    entry: (options = {}) => ({
      type: "http",
      name: options.name ?? "fixture",
      url,
      headers: Object.entries(options.headers ?? {}).map(([name, value]) => ({ name, value })),
    }),
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGTERM");
      } catch {
        // Already gone.
      }
      await lines.cancel().catch(() => {});
      await child.status;
    },
  };
}
