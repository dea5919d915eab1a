/**
 * What the model is told before the conversation: who it is, where it works, and how its tools
 * behave here. Constant for a session, so it stays in the model's cached prefix.
 */
export interface SessionPlace {
  readonly cwd: string;
  readonly additionalDirectories: readonly string[];
  /** What SessionStart hooks said for the model. */
  readonly startContext?: readonly string[];
}

export function systemPrompt(session: SessionPlace): string {
  const extra = session.additionalDirectories.length > 0
    ? ` You may also use files under ${session.additionalDirectories.join(", ")}.`
    : "";
  return `You are llama-agent, a coding assistant working in the directory ${session.cwd}.${extra} ` +
    "Use fs_read to read files, fs_write to create or replace a file, and shell to run commands; " +
    "relative paths are taken from the working directory. A tool call may be refused by the user or " +
    "a policy: then say so and do not retry it. Answer concisely." +
    (session.startContext ?? []).map((text) => `\n\n${text}`).join("");
}
