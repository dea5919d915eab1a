/**
 * Settings files and hook scripts for the seam tests: a hook is a command line, a settings file
 * is built from `{event: [[matcher, command], ...]}`.
 */
import type { ConversationItem, GenerateRequest } from "../../src/model/model.ts";

export function settings(
  hooks: Readonly<Record<string, readonly (readonly [string | null, string])[]>>,
  extra: Readonly<Record<string, unknown>> = {},
): string {
  const entries = Object.fromEntries(
    Object.entries(hooks).map(([event, list]) => [
      event,
      list.map(([matcher, command]) => ({
        ...(matcher === null ? {} : { matcher }),
        hooks: [{ type: "command", command }],
      })),
    ]),
  );
  return JSON.stringify({ ...extra, hooks: entries });
}

/** A hook command that prints `json` on stdout and exits 0. */
export function printing(json: unknown): string {
  return `printf '%s' '${JSON.stringify(json).replaceAll("'", "'\\''")}'`;
}

/** A hook command that appends its stdin (one line) to `log` in the project. */
export function logging(log: string): string {
  return `cat >> "$CLAUDE_PROJECT_DIR/${log}"; echo >> "$CLAUDE_PROJECT_DIR/${log}"`;
}

export async function readLog(path: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(path).catch(() => "");
  return text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
}

/** Everything the model was given on a call, as text: where hook context must show up. */
export function seen(request: GenerateRequest): string {
  return request.conversation.map(itemText).join("\n---\n");
}

function itemText(item: ConversationItem): string {
  if (item.role !== "assistant") return `${item.role}: ${item.text}`;
  return item.segments.map((s) => s.type === "tool_call" ? `tool ${s.name}: ${s.result}` : s.text)
    .join("\n");
}
