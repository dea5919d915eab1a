/**
 * A new session says, once, how many of its hooks can never fire under the agent's profile:
 * a settings file written for Claude Code guards nothing under profile llama, and the user must
 * hear it rather than find out.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { noticesOf, withInMemoryAgent } from "./in_memory_agent.ts";
import { foreignToolNotice } from "../../src/acp/session/foreign_tool_notice.ts";
import { loadSessionHooks } from "../../src/hooks/session_hooks.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";
import { withTempProject } from "../helpers/run_cli.ts";
import { waitUntil } from "../helpers/wait_until.ts";

const LLAMA = compatProfile("llama");

const FOR_CLAUDE_CODE = JSON.stringify({
  hooks: {
    PreToolUse: [
      { matcher: "Bash", hooks: [{ type: "command", command: "exit 0" }] },
      { matcher: "Edit|Write", hooks: [{ type: "command", command: "exit 0" }] },
      { hooks: [{ type: "command", command: "exit 0", if: "Bash(git commit:*)" }] },
      { matcher: "*", hooks: [{ type: "command", command: "exit 0" }] },
    ],
  },
});

/**
 * The start-up notices go out right after the session/new answer, in the same step as the
 * commands update: once that update is in, they are too.
 */
async function startUpdatesSent(
  t: { kinds(sessionId: string): string[] },
  sessionId: string,
): Promise<void> {
  await waitUntil(
    () => t.kinds(sessionId).includes("available_commands_update"),
    "the session's start-up updates",
  );
}

Deno.test("profile llama: one notice at session start counts the hooks that never fire", async () => {
  await withInMemoryAgent({
    files: { ".claude/settings.json": FOR_CLAUDE_CODE },
    script: { turns: [{ text: "ok" }] },
  }, async (t) => {
    const sessionId = await t.newSession();
    await startUpdatesSent(t, sessionId);
    const notices = noticesOf(t.updates, sessionId);
    assertEquals(notices.length, 1, notices.join("\n"));
    assertEquals(
      notices[0],
      '3 hooks never run in this session (matcher "Bash", matcher "Edit|Write", "if": ' +
        '"Bash(git commit:*)", in ".claude/settings.json"): they name Claude Code\'s tools, and ' +
        "llama-agent offers its own (shell, fs_read, fs_write, ...); start llama-agent with " +
        "--compat claude to offer Claude Code's tool names, or run \"llama-agent hooks lint " +
        "--fix\" to add llama-agent's names to the matchers and change the rest by hand: write " +
        '"shell(git commit:*)" for "Bash(git commit:*)"',
    );
  });
});

Deno.test("profile claude: the same settings file gives no notice", async () => {
  await withInMemoryAgent({
    files: { ".claude/settings.json": FOR_CLAUDE_CODE },
    script: { turns: [{ text: "ok" }] },
    profile: "claude",
  }, async (t) => {
    const sessionId = await t.newSession();
    await startUpdatesSent(t, sessionId);
    assertEquals(noticesOf(t.updates, sessionId), []);
  });
});

Deno.test("the notice names the other hooks that never run, and none is given when all can", async () => {
  const files = {
    "project/.claude/settings.json": JSON.stringify({
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "a" }] }],
        Stop: [{ hooks: [{ type: "command", command: "b", if: "shell" }] }],
      },
    }),
  };
  await withTempProject(files, async (dir) => {
    const cwd = `${dir}/project`;
    const hooks = await loadSessionHooks(cwd, undefined);
    const llama = foreignToolNotice(hooks, compatProfile("llama"), cwd) ?? "";
    assertStringIncludes(llama, '2 hooks never run in this session (matcher "Bash", in ');
    assertStringIncludes(llama, '; "llama-agent hooks lint" says why the other one does not');
    const claude = foreignToolNotice(hooks, compatProfile("claude"), cwd) ?? "";
    assertStringIncludes(claude, '1 hook never runs in this session ("if": "shell", in ');
    assertStringIncludes(claude, 'run "llama-agent hooks lint" to see why');
    const none = await loadSessionHooks(`${dir}/nowhere`, undefined);
    assertEquals(foreignToolNotice(none, compatProfile("llama"), cwd), undefined);
  });
});

Deno.test("--fix is advised only where it rewrites a matcher; else the edits to make by hand", async () => {
  const unfixable = JSON.stringify({
    hooks: {
      PreToolUse: [
        { hooks: [{ type: "command", command: "echo x", if: "Bash(git push:*)" }] },
        { matcher: "^(Edit|Write)$", hooks: [{ type: "command", command: "echo y" }] },
      ],
    },
  });
  await withTempProject({ "project/.claude/settings.json": unfixable }, async (dir) => {
    const cwd = `${dir}/project`;
    const notice = foreignToolNotice(await loadSessionHooks(cwd, undefined), LLAMA, cwd) ?? "";
    assertEquals(
      notice,
      '2 hooks never run in this session ("if": "Bash(git push:*)", matcher "^(Edit|Write)$", ' +
        'in ".claude/settings.json"): they name Claude Code\'s tools, and llama-agent offers its ' +
        "own (shell, fs_read, fs_write, ...); start llama-agent with --compat claude to offer " +
        'Claude Code\'s tool names, or change them by hand: write "shell(git push:*)" for ' +
        '"Bash(git push:*)" and make matcher "^(Edit|Write)$" also match llama-agent\'s names',
    );
  });
  const ours = JSON.stringify({
    hooks: { PostToolUse: [{ matcher: "^fs_", hooks: [{ type: "command", command: "a" }] }] },
  });
  await withTempProject({ "project/.claude/settings.json": ours }, async (dir) => {
    const cwd = `${dir}/project`;
    const hooks = await loadSessionHooks(cwd, undefined);
    const notice = foreignToolNotice(hooks, compatProfile("claude"), cwd) ?? "";
    assert(!notice.includes("--fix"), notice);
    assertStringIncludes(
      notice,
      'start llama-agent without --compat claude, or change them by hand: make matcher "^fs_" ' +
        "also match Claude Code's names",
    );
  });
});
