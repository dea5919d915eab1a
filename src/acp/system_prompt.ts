/**
 * What the model is told before the conversation: who it is, where it works, the rules its
 * tools keep here, the project's instructions and what SessionStart hooks said. Constant for a
 * session, so it stays in the model's cached prefix.
 *
 * Each tool describes itself (llama_tool_definitions.ts, claude_tool_definitions.ts); this says
 * only what holds for all of them, once. Every token is read before every first token
 * (bench/prompt_tokens.ts counts them).
 */
import { type CompatProfile, toolNameOf } from "../profile/compat_profile.ts";

export interface SessionPlace {
  readonly cwd: string;
  readonly additionalDirectories: readonly string[];
  /** What the project's instruction files say (project_instructions.ts). */
  readonly projectInstructions?: readonly string[] | undefined;
  /** What SessionStart hooks said for the model. */
  readonly startContext?: readonly string[];
}

/** The system prompt names the tools as this profile offers them. */
export function systemPrompt(session: SessionPlace, profile: CompatProfile): string {
  const extra = session.additionalDirectories.length > 0
    ? ` You may also use files under ${session.additionalDirectories.join(", ")}.`
    : "";
  const tool = (capability: Parameters<typeof toolNameOf>[1]) => toolNameOf(profile, capability);
  const base = `You are llama-agent, a coding assistant in ${session.cwd}.${extra} Relative ` +
    `paths start there. Look at files with ${tool("fs_read")}, ${tool("fs_glob")} and ` +
    `${tool("fs_grep")} rather than ${tool("shell")}. If the user or a policy refuses a tool ` +
    "call, say so and do not retry it. Answer concisely.";
  const after = [...(session.projectInstructions ?? []), ...(session.startContext ?? [])];
  return [base, ...after].join("\n\n");
}
