/**
 * The prompts of `doctor`'s tool-calling probe: each asks for one thing that one built-in tool
 * does, as a user would ask it, in a project the model cannot see. A call is relevant when it
 * calls that tool and its input names what was asked for (the file, the word, the command).
 *
 * They run in this order, one model call each: a scripted model (`scripted:FILE`) answers them
 * with its turns in this order.
 */
import type { ToolCapability } from "../profile/tool_identity.ts";

export interface ProbeTask {
  /** A stable id, for `--json`. */
  readonly id: string;
  /** What it asks for, as the report says it. */
  readonly label: string;
  readonly prompt: string;
  /** The tool that does it. */
  readonly capability: ToolCapability;
  /** Text that a call about this task has somewhere in its input (compared case-blind). */
  readonly mentions: string;
}

export const PROBE_TASKS: readonly ProbeTask[] = [
  {
    id: "read_file",
    label: "read a file",
    prompt: "What does the file notes.txt say?",
    capability: "fs_read",
    mentions: "notes.txt",
  },
  {
    id: "find_files",
    label: "find files",
    prompt: "Which Markdown files (*.md) does this project have?",
    capability: "fs_glob",
    mentions: ".md",
  },
  {
    id: "search_text",
    label: "search file contents",
    prompt: "Which files contain the word TODO?",
    capability: "fs_grep",
    mentions: "TODO",
  },
  {
    id: "run_command",
    label: "run a command",
    prompt: "Run `git status` and tell me what it says.",
    capability: "shell",
    mentions: "git status",
  },
  {
    id: "write_file",
    label: "write a file",
    prompt: "Create a file hello.txt that contains the line: Hello, world",
    capability: "fs_write",
    mentions: "hello.txt",
  },
];
