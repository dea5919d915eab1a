/**
 * What the model is told before the conversation: who it is, the rules its tools keep here,
 * where it works, the project's instructions, what SessionStart hooks said and, once the
 * conversation has been compacted, its summary. Constant between compactions, so it stays in the
 * model's cached prefix; what differs from project to project comes after what does not.
 *
 * Each tool describes itself (llama_tool_definitions.ts, claude_tool_definitions.ts); this says
 * only what holds for all of them, once. Every token is read before every first token
 * (bench/prompt_tokens.ts counts them).
 */
import type { ConversationItem } from "../../model/model.ts";
import { type CompatProfile, toolNameOf } from "../../profile/compat_profile.ts";

export interface SessionPlace {
  readonly cwd: string;
  readonly additionalDirectories: readonly string[];
  /** What the project's instruction files say (project_instructions.ts). */
  readonly projectInstructions?: readonly string[] | undefined;
  /** What SessionStart hooks said for the model. */
  readonly startContext?: readonly string[];
  /**
   * The summary of the conversation before its last compaction (compaction.ts): last, after
   * what every session of the project shares, so the shared part stays a cached prefix.
   */
  readonly contextSummary?: string | undefined;
}

/** What introduces the summary of a compacted conversation to the model. */
export const SUMMARY_HEADING = "Summary of the conversation so far (older messages were " +
  "compacted into it; the messages after it are the latest):\n";

/**
 * The system prompt, naming the tools as this profile offers them: first what every session of
 * the profile shares, then, after a blank line, where this one works and what its project says,
 * then what this session alone was told. The shared part stays the same from project to project
 * and the project's part from session to session, so a new session starts from their kept
 * evaluation (`sharedLength`, `projectLength`, src/model/llama/llama_prefix_state.ts) and evaluates
 * only the rest.
 */
export function systemPromptItem(
  session: SessionPlace,
  profile: CompatProfile,
): ConversationItem & { readonly role: "system" } {
  const [shared, project, own] = systemPromptParts(session, profile);
  return {
    role: "system",
    text: [shared, ...project, ...own].join(PARAGRAPH),
    sharedLength: shared.length,
    projectLength: [shared, ...project].join(PARAGRAPH).length,
  };
}

/** The system prompt's text (`systemPromptItem`). */
export function systemPrompt(session: SessionPlace, profile: CompatProfile): string {
  return systemPromptItem(session, profile).text;
}

const PARAGRAPH = "\n\n";

/**
 * The system prompt's paragraphs in three parts: what every session of the profile shares, what
 * every session of the project shares (where it works, the project's instructions), and this
 * session's own (what SessionStart hooks said, the summary of a compaction).
 */
function systemPromptParts(
  session: SessionPlace,
  profile: CompatProfile,
): [shared: string, project: string[], own: string[]] {
  const extra = session.additionalDirectories.length > 0
    ? ` You may also use files under ${session.additionalDirectories.join(", ")}.`
    : "";
  const place = `You work in ${session.cwd}.${extra} Relative paths start there.`;
  const summary = session.contextSummary === undefined || session.contextSummary === ""
    ? []
    : [SUMMARY_HEADING + session.contextSummary];
  return [
    sharedPart(profile),
    [place, ...(session.projectInstructions ?? [])],
    [...(session.startContext ?? []), ...summary],
  ];
}

/** What every session of `profile` is told, whatever its project. */
function sharedPart(profile: CompatProfile): string {
  const tool = (capability: Parameters<typeof toolNameOf>[1]) => toolNameOf(profile, capability);
  return `You are llama-agent, a coding assistant. Look at files with ${tool("fs_read")}, ` +
    `${tool("fs_glob")} and ${tool("fs_grep")} rather than ${tool("shell")}. If the user or a ` +
    "policy refuses a tool call, say so and do not retry it. Answer concisely.";
}
