/**
 * The kit each profile's sessions use (tool_kit.ts): the one place a profile id picks code.
 */
import type { CompatProfile } from "../../profile/compat_profile.ts";
import { claudeToolKit } from "./claude_tool_kit.ts";
import { llamaToolKit } from "./llama_tool_kit.ts";
import type { ToolKit } from "./tool_kit.ts";

/** A fresh kit: call once per session, since a kit may remember what its session did. */
export function createToolKit(profile: CompatProfile): ToolKit {
  switch (profile.id) {
    case "llama":
      return llamaToolKit();
    case "claude":
      return claudeToolKit();
    default:
      return profile.id satisfies never;
  }
}
