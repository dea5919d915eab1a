/**
 * The transport to one MCP server as its spec asks: Streamable HTTP for a URL, a process group of
 * its own for a stdio command; SSE is refused. A spec that cannot be used is a reason, not a throw.
 */
import type { McpServer } from "@agentclientprotocol/sdk";
import { StreamableHTTPClientTransport, type Transport } from "@modelcontextprotocol/client";
import { GroupStdioTransport } from "./group_stdio_transport.ts";

export interface McpTransportOptions {
  /** Where a stdio server starts. */
  readonly cwd: string;
  /** The environment a stdio server inherits under its own entries. */
  readonly env: Readonly<Record<string, string>>;
  readonly killGraceMs: number;
  /** The longest message a stdio server may write (the transport's default when absent). */
  readonly maxMessageBytes?: number;
}

export function openMcpTransport(
  spec: McpServer,
  options: McpTransportOptions,
):
  | { ok: true; value: Transport }
  | { ok: false; reason: string } {
  if ("type" in spec && spec.type === "http") {
    let url: URL;
    try {
      url = new URL(spec.url);
    } catch {
      return { ok: false, reason: `its URL "${spec.url}" is not a valid URL` };
    }
    const headers = Object.fromEntries(spec.headers.map((h) => [h.name, h.value]));
    return {
      ok: true,
      value: new StreamableHTTPClientTransport(url, { requestInit: { headers } }),
    };
  }
  if ("type" in spec && spec.type === "sse") {
    return {
      ok: false,
      reason: "the SSE transport is not supported (llama-agent speaks stdio and Streamable HTTP)",
    };
  }
  const env = { ...options.env };
  for (const { name, value } of spec.env ?? []) env[name] = value;
  return {
    ok: true,
    value: new GroupStdioTransport({
      command: spec.command,
      args: spec.args ?? [],
      env,
      cwd: options.cwd,
      killGraceMs: options.killGraceMs,
      maxMessageBytes: options.maxMessageBytes,
    }),
  };
}
