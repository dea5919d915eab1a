/**
 * A session's MCP servers: every `mcpServers` entry of `session/new` (or load, or resume),
 * connected at once and side by side, so the session answers without waiting for them; a prompt
 * waits for the attempts to settle before offering tools. One server failing never fails the
 * session: its problem is reported (to the log and, through `watch`, to the user) and its tools
 * are left out.
 */
import type { McpServer } from "@agentclientprotocol/sdk";
import type { ToolDefinition } from "../../model/model.ts";
import type { ToolExecution } from "../tools/tool_kit.ts";
import {
  McpConnection,
  type McpConnectionOptions,
  type McpServerStatus,
  type McpTool,
} from "./mcp_connection.ts";
import { normalizedNamePart, serverPartOf } from "./mcp_tool_name.ts";
import { mcpToolExecution } from "./mcp_tool_result.ts";

export type McpServersOptions = Omit<McpConnectionOptions, "onLost" | "onProblem">;

/** What a tool name the model emitted refers to. */
export type McpLookup =
  | { readonly kind: "tool"; readonly tool: McpTool }
  /** A tool of a server that failed, stopped or is not there: the message says which. */
  | { readonly kind: "unavailable"; readonly message: string }
  /** Not an MCP tool name at all. */
  | { readonly kind: "none" };

export const DEFAULT_MCP_START_TIMEOUT_MS = 30_000;
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 600_000;
export const DEFAULT_MCP_KILL_GRACE_MS = 1_000;

export class McpServers {
  readonly #connections: McpConnection[] = [];
  readonly #settled: Promise<void>;
  readonly #problems: string[] = [];
  readonly #watchers = new Set<(problem: string) => void>();

  private constructor(specs: readonly McpServer[], options: McpServersOptions) {
    const seen = new Set<string>();
    const attempts: Promise<unknown>[] = [];
    for (const spec of specs) {
      const key = normalizedNamePart(spec.name);
      if (key === "" || key.includes("__")) {
        this.#report(
          `MCP server "${spec.name}" is not used: its name must not be empty or contain "__", ` +
            `which tool names (mcp__<server>__<tool>) use to say where the server name ends`,
        );
        continue;
      }
      if (seen.has(key)) {
        this.#report(
          `MCP server "${spec.name}" is not used: another server of the session is also named ` +
            `"${key}" in tool names (mcp__${key}__<tool>), which must say which server they ` +
            "belong to",
        );
        continue;
      }
      seen.add(key);
      const connection = new McpConnection(spec, {
        ...options,
        onLost: (message) => this.#report(message),
        onProblem: (message) => this.#report(message),
      });
      this.#connections.push(connection);
      attempts.push(
        connection.connect().then((status) => {
          if (status.kind === "failed") this.#report(status.message);
        }),
      );
    }
    this.#settled = Promise.all(attempts).then(() => {});
  }

  /** Starts connecting every server; never throws. */
  static start(specs: readonly McpServer[], options: McpServersOptions): McpServers {
    return new McpServers(specs, options);
  }

  /** Settles when every server is ready or has failed (each attempt is bounded by its timeout). */
  ready(): Promise<void> {
    return this.#settled;
  }

  get statuses(): ReadonlyArray<{ readonly name: string; readonly status: McpServerStatus }> {
    return this.#connections.map((c) => ({ name: c.name, status: c.status }));
  }

  /** The tools of the servers that are ready now, as the model is offered them. */
  definitions(): ToolDefinition[] {
    return this.#connections.flatMap((c) =>
      c.tools.map((tool) => ({
        name: tool.name,
        description: tool.description || tool.title ||
          `${tool.toolName} (MCP server ${tool.server})`,
        inputSchema: tool.inputSchema,
      }))
    );
  }

  /** The names of the tools on offer now, for messages. */
  toolNames(): string[] {
    return this.#connections.flatMap((c) => c.tools.map((tool) => tool.name));
  }

  lookup(name: string): McpLookup {
    for (const connection of this.#connections) {
      const tool = connection.tools.find((t) => t.name === name);
      if (tool) return { kind: "tool", tool };
    }
    const server = serverPartOf(name);
    if (server === undefined) return { kind: "none" };
    const connection = this.#connections.find((c) => normalizedNamePart(c.name) === server);
    if (!connection) {
      const known = this.#connections.map((c) => `"${c.name}"`).join(", ");
      return {
        kind: "unavailable",
        message: `Unknown tool "${name}": this session has no MCP server "${server}"` +
          (known === "" ? " (it has no MCP servers)" : ` (its MCP servers: ${known})`),
      };
    }
    if (connection.status.kind !== "ready") {
      return { kind: "unavailable", message: connection.unavailableMessage() };
    }
    const names = connection.tools.map((t) => t.name).join(", ");
    return {
      kind: "unavailable",
      message: `Unknown tool "${name}": MCP server "${connection.name}" has ` +
        (names === "" ? "no tools" : `these tools: ${names}`),
    };
  }

  /** Runs one call; every outcome is a ToolExecution, failures included. */
  async call(tool: McpTool, input: unknown, signal: AbortSignal): Promise<ToolExecution> {
    const connection = this.#connections.find((c) => c.name === tool.server);
    const outcome = connection ? await connection.call(tool, input, signal) : {
      kind: "failed" as const,
      message: `Unknown MCP server "${tool.server}"`,
      interrupted: false,
    };
    if (outcome.kind === "result") return mcpToolExecution(outcome.result);
    return {
      status: "failed",
      modelText: outcome.message,
      content: [{ type: "content", content: { type: "text", text: outcome.message } }],
      rawOutput: { error: outcome.message },
      interrupted: outcome.interrupted,
    };
  }

  /**
   * Calls `listener` with every problem so far (a server that failed to start) and every later
   * one (a server that stops), until the returned function is called.
   */
  watch(listener: (problem: string) => void): () => void {
    for (const problem of this.#problems) listener(problem);
    this.#watchers.add(listener);
    return () => this.#watchers.delete(listener);
  }

  /** Ends every server; each is bounded by its kill grace. */
  async close(): Promise<void> {
    this.#watchers.clear();
    await Promise.all(this.#connections.map((c) => c.close()));
  }

  #report(problem: string): void {
    // A problem seen again (a tool list re-read) is told once.
    if (this.#problems.includes(problem)) return;
    this.#problems.push(problem);
    for (const watcher of this.#watchers) watcher(problem);
  }
}
