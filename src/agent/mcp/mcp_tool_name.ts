/**
 * The names MCP tools go by: `mcp__<server>__<tool>`, as in Claude Code, so that one hook matcher
 * (`mcp__github__.*`) or permission rule serves both agents. Characters a model's function name
 * cannot carry are replaced with `_`, as Claude Code does.
 */
import { MCP_TOOL_PREFIX } from "../../profile/tool_identity.ts";

/** What a server or tool name is reduced to: letters, digits, `_` and `-`. */
export function normalizedNamePart(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}

export function mcpToolName(server: string, tool: string): string {
  return `${MCP_TOOL_PREFIX}${normalizedNamePart(server)}__${normalizedNamePart(tool)}`;
}

/** The server part of an MCP tool name, or undefined when the name is no MCP tool name. */
export function serverPartOf(name: string): string | undefined {
  if (!name.startsWith(MCP_TOOL_PREFIX)) return undefined;
  const rest = name.slice(MCP_TOOL_PREFIX.length);
  const end = rest.indexOf("__");
  return end > 0 ? rest.slice(0, end) : undefined;
}
