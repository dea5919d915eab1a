/**
 * One MCP server of a session, through the official client SDK: connect (stdio or Streamable
 * HTTP), list its tools and keep the list current, call them, and end the server with the
 * session. Nothing here throws at the caller: a server that cannot start, hangs, crashes or
 * answers with an error becomes a status or a failed call whose message says which server and
 * why.
 */
import type { McpServer } from "@agentclientprotocol/sdk";
import {
  type CallToolResult,
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
  type Tool,
  type Transport,
} from "@modelcontextprotocol/client";
import { decodeArguments } from "../tools/json_arguments.ts";
import { GroupStdioTransport } from "./group_stdio_transport.ts";
import { mcpToolName } from "./mcp_tool_name.ts";
import {
  connectionBroke,
  lastLines,
  readableError,
  seconds,
  StartTimeout,
  withTimeout,
} from "./mcp_failures.ts";
import { openMcpTransport } from "./mcp_transport.ts";

export interface McpConnectionOptions {
  /** The session cwd: where a stdio server starts. */
  readonly cwd: string;
  /** The agent's environment, which a stdio server inherits under its own entries. */
  readonly env: Readonly<Record<string, string>>;
  readonly startTimeoutMs: number;
  readonly callTimeoutMs: number;
  readonly killGraceMs: number;
  /** The longest message a stdio server may write (the transport's default when absent). */
  readonly maxMessageBytes?: number;
  readonly clientVersion: string;
  readonly log: (line: string) => void;
  /** The server went away while the session used it; the message says why. */
  readonly onLost: (message: string) => void;
  /** Something the user should know that does not stop the server (a tool left out). */
  readonly onProblem: (message: string) => void;
}

export type McpServerStatus =
  | { readonly kind: "connecting" }
  | { readonly kind: "ready" }
  | { readonly kind: "failed"; readonly message: string }
  | { readonly kind: "lost"; readonly message: string }
  | { readonly kind: "closed" };

/** A tool as the model is offered it. */
export interface McpTool {
  /** `mcp__<server>__<tool>`. */
  readonly name: string;
  readonly server: string;
  /** The name the server knows it by. */
  readonly toolName: string;
  readonly title: string | undefined;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
}

export type McpCallOutcome =
  | { readonly kind: "result"; readonly result: CallToolResult }
  | { readonly kind: "failed"; readonly message: string; readonly interrupted: boolean };

/** How long a call's answer waits for a tool list the server announced as changed. */
const REFRESH_WAIT_MS = 2_000;

export class McpConnection {
  readonly name: string;
  #status: McpServerStatus = { kind: "connecting" };
  #client: Client | undefined;
  #transport: Transport | undefined;
  #tools: readonly McpTool[] = [];
  #refreshing: Promise<void> | undefined;
  #refreshAgain = false;
  /** A list change announced before the first list was in: read the list again once ready. */
  #changedWhileConnecting = false;
  /** The last thing the connection complained of while connecting (a stray stdout line). */
  #lastError: string | undefined;

  constructor(private readonly spec: McpServer, private readonly options: McpConnectionOptions) {
    this.name = spec.name;
  }

  get status(): McpServerStatus {
    return this.#status;
  }

  get tools(): readonly McpTool[] {
    return this.#status.kind === "ready" ? this.#tools : [];
  }

  /** The status, read afresh: it changes under awaits (a crash, a close). */
  #statusNow(): McpServerStatus {
    return this.#status;
  }

  /** Starts the server, shakes hands and reads its tools; the status says how it went. */
  async connect(): Promise<McpServerStatus> {
    const transport = openMcpTransport(this.spec, this.options);
    if (!transport.ok) return this.#fail(this.#prefix(transport.reason));
    this.#transport = transport.value;
    const client = new Client({ name: "llama-agent", version: this.options.clientVersion });
    this.#client = client;
    client.setNotificationHandler("notifications/tools/list_changed", () => this.#refreshTools());
    client.onerror = (error) => {
      if (this.#status.kind === "connecting") this.#lastError = error.message;
      this.options.log(`MCP server "${this.name}": ${error.message}`);
    };
    client.onclose = () => this.#closedUnderUs();
    const timeoutMs = this.options.startTimeoutMs;
    // One budget for the handshake and the tool list together.
    const deadline = performance.now() + timeoutMs;
    const left = () => Math.max(1, Math.round(deadline - performance.now()));
    try {
      await withTimeout(client.connect(transport.value, { timeout: left() }), left());
      const { tools } = await withTimeout(
        client.listTools(undefined, { timeout: left() }),
        left(),
      );
      if (this.#statusNow().kind !== "connecting") return this.#status;
      this.#tools = this.#offered(tools);
      this.#status = { kind: "ready" };
      this.options.log(`MCP server "${this.name}": ready with ${this.#tools.length} tool(s)`);
      if (this.#changedWhileConnecting) this.#refreshTools();
      return this.#status;
    } catch (error) {
      if (this.#statusNow().kind !== "connecting") return this.#status;
      const transport = this.#transport;
      if (transport instanceof GroupStdioTransport && this.#mayHaveExited(error)) {
        // A write to a server that is already gone fails first (a broken pipe); its exit, a
        // moment later, says why it went.
        await withTimeout(transport.ended(), this.options.killGraceMs).catch(() => {});
        if (this.#statusNow().kind !== "connecting") return this.#status;
      }
      const message = error instanceof StartTimeout
        ? `it did not answer within ${seconds(timeoutMs)}` +
          (this.#lastError === undefined ? "" : ` (${this.#lastError})`)
        : this.#whyItEnded(error);
      await this.#shutDown();
      if (this.#statusNow().kind !== "connecting") return this.#status;
      return this.#fail(message);
    }
  }

  /** Whether a failed start may be the server's exit: not a timeout, not an answer it gave. */
  #mayHaveExited(error: unknown): boolean {
    if (error instanceof StartTimeout || error instanceof ProtocolError) return false;
    return !(error instanceof SdkError) || connectionBroke(error);
  }

  async call(tool: McpTool, input: unknown, signal: AbortSignal): Promise<McpCallOutcome> {
    const client = this.#client;
    if (this.#status.kind !== "ready" || !client) {
      return { kind: "failed", message: this.unavailableMessage(), interrupted: false };
    }
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      // Text that is not JSON is said to be so: the model meant an object and can mend it.
      const decoded = decodeArguments(input);
      return {
        kind: "failed",
        message: decoded.ok
          ? `The input of ${tool.name} must be a JSON object, got ${JSON.stringify(input)}`
          : `The input of ${tool.name} must be a JSON object; the arguments are not valid ` +
            `JSON: ${decoded.problem}`,
        interrupted: false,
      };
    }
    const timeoutMs = this.options.callTimeoutMs;
    try {
      const result = await client.callTool(
        { name: tool.toolName, arguments: input as Record<string, unknown> },
        { signal, timeout: timeoutMs },
      );
      // A server announces a new tool before its call answers (one ordered stream): the re-read
      // list is in before the model generates again, so it can call the new tool at once.
      if (this.#refreshing) await withTimeout(this.#refreshing, REFRESH_WAIT_MS).catch(() => {});
      return { kind: "result", result: result as CallToolResult };
    } catch (error) {
      if (signal.aborted) {
        return { kind: "failed", message: "The tool call was cancelled", interrupted: true };
      }
      // The connection may learn of the crash a moment after the call does.
      const transport = this.#transport;
      if (connectionBroke(error) && transport instanceof GroupStdioTransport && !transport.exit) {
        // The call learns of a crash before the process is reaped: wait for the exit (bounded by
        // the kill grace, since we end the group) to say why the server went.
        await withTimeout(transport.ended(), this.options.killGraceMs).catch(() => {});
      }
      const status = this.#statusNow();
      if (status.kind === "lost") {
        return { kind: "failed", message: status.message, interrupted: false };
      }
      const message = error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout
        ? `MCP server "${this.name}" did not answer ${tool.name} within ${seconds(timeoutMs)}`
        : `MCP server "${this.name}" could not run ${tool.name}: ${readableError(error)}`;
      return { kind: "failed", message, interrupted: false };
    }
  }

  /** Why this server's tools cannot be used now, for the model and the user. */
  unavailableMessage(): string {
    const status = this.#status;
    switch (status.kind) {
      case "connecting":
        return `MCP server "${this.name}" is still starting`;
      case "ready":
        return `MCP server "${this.name}" is running`;
      case "failed":
      case "lost":
        return status.message;
      case "closed":
        return `MCP server "${this.name}" was shut down with its session`;
      default:
        return status satisfies never;
    }
  }

  /** Ends the server (its whole process group, for stdio); bounded by the kill grace. */
  async close(): Promise<void> {
    if (this.#status.kind === "closed") return;
    this.#status = { kind: "closed" };
    await this.#shutDown();
  }

  async #shutDown(): Promise<void> {
    const transport = this.#transport;
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
      // Tells the server the session is over; a server that does not answer is not waited for.
      await withTimeout(transport.terminateSession(), this.options.killGraceMs).catch(() => {});
    }
    // The transport first: for stdio it ends the process group, whatever the client may still
    // be waiting for; the client's own close is then only bookkeeping, and bounded.
    await transport?.close().catch(() => {});
    const client = this.#client?.close().catch(() => {});
    if (client) await withTimeout(client, this.options.killGraceMs).catch(() => {});
  }

  /**
   * The tools as offered. Two tools whose names become the same `mcp__` name (`read.file` and
   * `read_file`) cannot both be told apart by the model: the first is kept, the other reported.
   */
  #offered(tools: readonly Tool[]): McpTool[] {
    const offered = new Map<string, McpTool>();
    for (const tool of tools) {
      const name = mcpToolName(this.name, tool.name);
      const earlier = offered.get(name);
      if (earlier) {
        this.options.onProblem(
          `MCP server "${this.name}": its tools "${earlier.toolName}" and "${tool.name}" both ` +
            `become ${name}; only "${earlier.toolName}" is offered`,
        );
        continue;
      }
      offered.set(name, {
        name,
        server: this.name,
        toolName: tool.name,
        title: tool.title ?? tool.annotations?.title,
        description: tool.description ?? "",
        inputSchema: tool.inputSchema as Record<string, unknown>,
      });
    }
    return [...offered.values()];
  }

  /** Re-reads the tool list; notifications that come during a read are folded into one more. */
  #refreshTools(): void {
    if (this.#status.kind === "connecting") {
      this.#changedWhileConnecting = true;
      return;
    }
    if (this.#refreshing) {
      this.#refreshAgain = true;
      return;
    }
    const read = async () => {
      do {
        this.#refreshAgain = false;
        const client = this.#client;
        if (!client || this.#status.kind !== "ready") return;
        try {
          const { tools } = await client.listTools(undefined, {
            timeout: this.options.startTimeoutMs,
          });
          if (this.#statusNow().kind !== "ready") return;
          this.#tools = this.#offered(tools);
          this.options.log(`MCP server "${this.name}": its tools changed (${tools.length} now)`);
        } catch (error) {
          if (this.#statusNow().kind !== "ready") return;
          this.options.log(
            `MCP server "${this.name}": cannot read its changed tool list: ${readableError(error)}`,
          );
        }
      } while (this.#refreshAgain);
    };
    this.#refreshing = read().finally(() => (this.#refreshing = undefined));
  }

  /** The transport closed without us closing it: the server exited or the connection broke. */
  #closedUnderUs(): void {
    if (this.#status.kind !== "ready") return;
    const message = `MCP server "${this.name}" stopped during the session` +
      this.#exitDetails() + "; its tools are unavailable for the rest of the session";
    this.#status = { kind: "lost", message };
    this.options.log(message);
    this.options.onLost(message);
  }

  #whyItEnded(error: unknown): string {
    const transport = this.#transport;
    if (transport instanceof GroupStdioTransport && transport.violation !== undefined) {
      return transport.violation;
    }
    // An exit we caused (the SDK closes the connection after a refused handshake) says nothing.
    if (transport instanceof GroupStdioTransport && transport.exit?.byItself) {
      if (transport.exit.execFailure !== undefined) {
        return `cannot run "${this.#command()}": ${transport.exit.execFailure}`;
      }
      return `it exited before it was ready${this.#exitDetails()}`;
    }
    if (error instanceof SdkHttpError) {
      const status = `HTTP ${error.status}${error.statusText ? ` ${error.statusText}` : ""}`;
      return `${status} from ${this.#command()}: ${error.message}`;
    }
    return readableError(error);
  }

  /** " (exit code 3: <the end of its stderr>)", as far as it is known. */
  #exitDetails(): string {
    const transport = this.#transport;
    if (!(transport instanceof GroupStdioTransport)) return "";
    if (transport.violation !== undefined) return ` (${transport.violation})`;
    if (!transport.exit) return "";
    const { code, signal } = transport.exit;
    const how = signal !== null ? `killed by ${signal}` : `exit code ${code}`;
    const stderr = lastLines(transport.stderrTail, 3);
    return stderr === "" ? ` (${how})` : ` (${how}: ${stderr})`;
  }

  /** The command, or the URL without its query (which may carry a token). */
  #command(): string {
    if (!("url" in this.spec)) return this.spec.command;
    try {
      const url = new URL(this.spec.url);
      return `${url.origin}${url.pathname}`;
    } catch {
      return this.spec.url;
    }
  }

  #prefix(reason: string): string {
    return `MCP server "${this.name}" cannot be used: ${reason}`;
  }

  #fail(reason: string): McpServerStatus {
    const message = reason.startsWith(`MCP server "${this.name}"`)
      ? reason
      : `MCP server "${this.name}" failed to start: ${reason}`;
    this.#status = { kind: "failed", message };
    this.options.log(message);
    return this.#status;
  }
}
