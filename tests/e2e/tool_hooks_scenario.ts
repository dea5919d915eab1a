/**
 * The tool-seam scenario of hooks_tool_seams_test.ts: eleven calls in one model turn, the files
 * they touch, and hooks that meet each call with a different behaviour (deny, allow with a
 * rewrite, a bare rewrite with context, ask, matchers on emitted names, Post context, a Post
 * block, a Post exit 2, a PostToolUseFailure context). A `.when` names the one call a hook
 * answers; every other call it only logs.
 */
import type { JsonObject } from "../helpers/acp_harness.ts";
import { group, hook, type HookDir } from "./hook_project.ts";

export const CALLS = [
  { name: "fs_write", input: { file_path: "denied.txt", content: "should not exist\n" } },
  { name: "fs_write", input: { file_path: "allowed.txt", content: "from the model\n" } },
  { name: "write_file", input: { file_path: "aliased.txt", content: "via the alias\n" } },
  { name: "fs_read", input: { file_path: "decoy.txt" } },
  { name: "fs_read", input: { file_path: "asked.txt" } },
  { name: "shell", input: { command: "echo via-shell" } },
  { name: "terminal", input: { command: "echo via-terminal" } },
  { name: "fs_read", input: { file_path: "ok.txt" } },
  { name: "fs_read", input: { file_path: "blocked.txt" } },
  { name: "fs_read", input: { file_path: "exit2.txt" } },
  { name: "fs_read", input: { file_path: "missing.txt" } },
] as const;
export const ANSWER = "All done.";

export const FILES = {
  "decoy.txt": "decoy content\n",
  "real.txt": "real content\n",
  "asked.txt": "asked content\n",
  "ok.txt": "ok content\n",
  "blocked.txt": "odd content\n",
  "exit2.txt": "exit2 content\n",
};

export const SETTINGS = {
  hooks: {
    PreToolUse: [
      group("fs_write", hook("pre_deny"), hook("pre_allow")),
      group("fs_read", hook("pre_rewrite"), hook("pre_ask")),
      group("shell|terminal", hook("pre_shell")),
    ],
    PostToolUse: [
      group("fs_read", hook("post_ctx"), hook("post_block"), hook("post_exit2")),
      group(undefined, hook("post_all")),
    ],
    PostToolUseFailure: [group(undefined, hook("post_fail"))],
  },
};
export const LOCAL_HOOKS = { PreToolUse: [group("write_file", hook("local_alias"))] };

const preToolUse = (fields: JsonObject) => ({
  hookSpecificOutput: { hookEventName: "PreToolUse", ...fields },
});

export const REPLIES: HookDir["replies"] = {
  pre_deny: {
    when: '"denied.txt"',
    out: preToolUse({
      permissionDecision: "deny",
      permissionDecisionReason: "no writes to denied.txt",
    }),
  },
  pre_allow: {
    when: '"allowed.txt"',
    out: preToolUse({
      permissionDecision: "allow",
      updatedInput: { file_path: "allowed.txt", content: "rewritten by the hook\n" },
    }),
  },
  pre_rewrite: {
    when: '"decoy.txt"',
    out: preToolUse({
      updatedInput: { file_path: "real.txt" },
      additionalContext: "read real.txt instead",
    }),
  },
  pre_ask: {
    when: '"asked.txt"',
    out: preToolUse({ permissionDecision: "ask", permissionDecisionReason: "check this read" }),
  },
  post_ctx: {
    when: '"ok.txt"',
    out: {
      hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "ok was checked" },
    },
  },
  post_block: {
    when: '"blocked.txt"',
    out: { decision: "block", reason: "blocked.txt looked odd" },
  },
  post_exit2: { when: '"exit2.txt"', err: "exit2.txt needs review\n", code: 2 },
  post_fail: {
    out: {
      hookSpecificOutput: {
        hookEventName: "PostToolUseFailure",
        additionalContext: "the file may be elsewhere",
      },
    },
  },
};
