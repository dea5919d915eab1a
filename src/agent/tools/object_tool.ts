/**
 * A tool as offered to the model: an object of the given properties, those named required, and
 * nothing else (both profiles' definitions are written with it).
 */
import type { ToolDefinition } from "../../model/model.ts";

export function objectTool(
  name: string,
  description: string,
  properties: Record<string, unknown>,
  required: string[],
): ToolDefinition {
  return {
    name,
    description,
    inputSchema: { type: "object", properties, required, additionalProperties: false },
  };
}
