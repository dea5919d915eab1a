/**
 * What the model is told before the conversation: who it is, where it works, and how its tools
 * behave here. Constant for a session, so it stays in the model's cached prefix.
 */
import { type CompatProfile, toolNameOf } from "../profile/compat_profile.ts";

export interface SessionPlace {
  readonly cwd: string;
  readonly additionalDirectories: readonly string[];
  /** What SessionStart hooks said for the model. */
  readonly startContext?: readonly string[];
}

/** The system prompt names the tools as this profile offers them. */
export function systemPrompt(session: SessionPlace, profile: CompatProfile): string {
  const extra = session.additionalDirectories.length > 0
    ? ` You may also use files under ${session.additionalDirectories.join(", ")}.`
    : "";
  const tool = (capability: Parameters<typeof toolNameOf>[1]) => toolNameOf(profile, capability);
  return `You are llama-agent, a coding assistant working in the directory ${session.cwd}.${extra} ` +
    `Use ${tool("fs_read")} to read files, ${tool("fs_edit")} to change part of a file, ` +
    `${tool("fs_write")} to create or replace a file, ${tool("fs_glob")} to find files by name, ` +
    `${tool("fs_grep")} to search their text, and ${tool("shell")} to run commands; ` +
    "relative paths are taken from the working directory. A tool call may be refused by the user or " +
    "a policy: then say so and do not retry it. Answer concisely." +
    (session.startContext ?? []).map((text) => `\n\n${text}`).join("");
}
