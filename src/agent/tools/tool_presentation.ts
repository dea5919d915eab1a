/**
 * How a tool call looks to the client before it runs (ACP `tool_call`): a short title, a kind the
 * client picks an icon by, and the files it touches so the editor can follow along. Pure: input
 * that does not parse still gets a title (the tool name), since the call is announced before it
 * is validated.
 */
import { isAbsolute, relative, resolve } from "node:path";
import type { ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";
import { CAPABILITIES, type ToolCapability } from "../../profile/tool_identity.ts";
import type { ToolOperation } from "./tool_operation.ts";

export interface ToolPresentation {
  readonly title: string;
  readonly kind: ToolKind;
  readonly locations: ToolCallLocation[];
}

const TITLE_COMMAND_CHARS = 80;

/** `execute` for shell, `read`, `edit`, `search`; `other` for MCP and unknown tools (acp.md). */
export function toolKind(capability: ToolCapability | undefined): ToolKind {
  return capability === undefined ? "other" : CAPABILITIES[capability].kind;
}

export function toolCallPresentation(call: {
  readonly name: string;
  readonly capability: ToolCapability | undefined;
  /** The call's operation, when its input parsed. */
  readonly operation: ToolOperation | undefined;
  /** The session cwd: paths are shown relative to it. */
  readonly cwd: string;
}): ToolPresentation {
  const kind = toolKind(call.capability);
  const { operation } = call;
  if (operation === undefined) return { title: call.name, kind, locations: [] };
  const at = (path: string) => resolve(call.cwd, path);
  switch (operation.capability) {
    case "shell":
      return {
        title: `Run ${inlineCode(commandSummary(operation.command))}`,
        kind,
        locations: [],
      };
    case "fs_read": {
      const path = at(operation.path);
      const { offset, limit } = operation;
      return {
        title: `Read ${shownPath(path, call.cwd)}${lineRange(offset, limit)}`,
        kind,
        locations: [offset === undefined ? { path } : { path, line: offset }],
      };
    }
    case "fs_write": {
      const path = at(operation.path);
      return { title: `Write ${shownPath(path, call.cwd)}`, kind, locations: [{ path }] };
    }
    case "fs_edit": {
      const path = at(operation.path);
      return { title: `Edit ${shownPath(path, call.cwd)}`, kind, locations: [{ path }] };
    }
    case "fs_glob": {
      const where = operation.path === undefined
        ? ""
        : ` in ${shownPath(at(operation.path), call.cwd)}`;
      return { title: `Find ${inlineCode(operation.pattern)}${where}`, kind, locations: [] };
    }
    case "fs_grep": {
      const where = operation.path === undefined
        ? ""
        : ` in ${shownPath(at(operation.path), call.cwd)}`;
      return { title: `Search ${inlineCode(operation.pattern)}${where}`, kind, locations: [] };
    }
    default:
      return operation satisfies never;
  }
}

/** Relative to the cwd when inside it (the user's project), absolute otherwise. */
export function shownPath(absolute: string, cwd: string): string {
  const rel = relative(cwd, absolute);
  if (rel === "") return ".";
  return rel === ".." || rel.startsWith("../") || isAbsolute(rel) ? absolute : rel;
}

function lineRange(offset: number | undefined, limit: number | undefined): string {
  if (limit !== undefined) return ` (lines ${offset ?? 1}-${(offset ?? 1) + limit - 1})`;
  if (offset !== undefined) return ` (from line ${offset})`;
  return "";
}

/** The first line of a command, cut short, so a title stays one line. */
function commandSummary(command: string): string {
  const lines = command.trim().split("\n");
  const first = lines[0] ?? "";
  const more = lines.length > 1;
  if (first.length <= TITLE_COMMAND_CHARS && !more) return first;
  return first.slice(0, TITLE_COMMAND_CHARS).trimEnd() + "…";
}

/** Markdown inline code that survives backticks inside the text. */
function inlineCode(text: string): string {
  const longestRun = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longestRun + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}
