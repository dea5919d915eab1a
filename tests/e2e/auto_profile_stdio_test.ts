/**
 * `--compat auto`, the default, over real stdio on a scripted model: each session's profile is
 * decided from its directory's hooks. A stock Claude Code settings file guarding `Bash` guards
 * the agent with no flag; a file written for llama-agent's own tools, a file naming both, and no
 * hooks at all keep llama-agent's tools; a flag or the config file still forces the profile.
 * The choice and its reason are said once, on stderr, and in a notice when the hooks chose Claude
 * Code's tool names.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import type { AcpHarness, JsonObject } from "../helpers/acp_harness.ts";
import { allowAndRecord, textPrompt as text } from "./e2e_project.ts";
import {
  exists,
  finalUpdateOf,
  type HookProject,
  noticesOf,
  readTranscript,
  toolCallRecord,
  withHookProject,
} from "./hook_project.ts";

/** Claude Code's usual guard: refuses `rm -rf` (exit 2), says it ran. */
const GUARD = `#!/bin/sh
input=$(cat)
printf '%s\\n' "$input" >> "$CLAUDE_PROJECT_DIR/guard_log.jsonl"
case "$input" in *"rm -rf"*) echo "Blocked: rm -rf is not allowed" >&2; exit 2;; esac
exit 0
`;

const GUARD_COMMAND = '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh';

function guarding(...matchers: string[]): JsonObject {
  return {
    hooks: {
      PreToolUse: matchers.map((matcher) => ({
        matcher,
        hooks: [{ type: "command", command: GUARD_COMMAND }],
      })),
    },
  };
}

const FILES = {
  ".claude/hooks/guard.sh": GUARD,
  "victim/keep.txt": "precious\n",
};

/** A session dir with `settings` (none: no settings file) and the guard script. */
async function sessionWith(p: HookProject, name: string, settings?: JsonObject): Promise<string> {
  const dir = await p.sessionDir(name, { ...(settings ? { settings } : {}), files: FILES });
  await Deno.chmod(`${dir}/.claude/hooks/guard.sh`, 0o755);
  return dir;
}

/** One prompt whose model calls `tool` to delete the victim, then answers. */
async function deleteWith(
  p: HookProject,
  tool: string,
  extra: readonly string[] = [],
): Promise<AcpHarness> {
  const model = await p.scriptedModel([
    { toolCalls: [{ name: tool, input: { command: "rm -rf victim" } }] },
    { text: "Done." },
  ], `${tool}-${crypto.randomUUID()}.json`);
  const agent = await p.startAgent(model, extra);
  allowAndRecord(agent);
  return agent;
}

async function prompt(agent: AcpHarness, sessionId: string): Promise<void> {
  const result = await agent.call("session/prompt", { sessionId, prompt: text("clean up") });
  assertEquals((result as JsonObject).stopReason, "end_turn");
}

async function guardRuns(dir: string): Promise<number> {
  const log = await Deno.readTextFile(`${dir}/guard_log.jsonl`).catch(() => "");
  return log.split("\n").filter((line) => line !== "").length;
}

Deno.test("auto: a stock Claude Code settings.json guarding Bash blocks the agent's shell call with no flag", async () => {
  await withHookProject(async (p) => {
    const dir = await sessionWith(p, "claude", guarding("Bash"));
    const agent = await deleteWith(p, "Bash");
    const sessionId = await p.newSessionIn(agent, dir);
    await prompt(agent, sessionId);

    assertEquals(await exists(`${dir}/victim/keep.txt`), true);
    assertEquals(await guardRuns(dir), 1);
    assertEquals(finalUpdateOf(agent, sessionId, "call_1").status, "failed");
    const seen = String(toolCallRecord(await readTranscript(p.home, sessionId), "call_1").result);
    assertStringIncludes(seen, "Blocked: rm -rf is not allowed");
    const notices = noticesOf(agent, sessionId);
    assertEquals(notices.length, 1, JSON.stringify(notices));
    assertEquals(
      notices[0],
      "Hooks see Claude Code's tool names (Bash, Read, Write, Edit, Glob, Grep): profile claude " +
        `(auto: the hooks name Claude Code's tools in matcher "Bash")`,
    );
    assertStringIncludes(
      agent.stderr,
      `profile claude (auto: the hooks name Claude Code's tools in matcher "Bash")`,
    );
    await agent.close();
  });
});

Deno.test("auto: settings naming llama-agent's tools stay llama, its shell guard blocks, and no notice is sent", async () => {
  await withHookProject(async (p) => {
    const dir = await sessionWith(p, "llama", guarding("shell"));
    const agent = await deleteWith(p, "shell");
    const sessionId = await p.newSessionIn(agent, dir);
    await prompt(agent, sessionId);

    assertEquals(await exists(`${dir}/victim/keep.txt`), true);
    assertEquals(await guardRuns(dir), 1);
    // llama-agent's own names, as ever: nothing to tell the editor, the log says why.
    assertEquals(noticesOf(agent, sessionId), []);
    assertStringIncludes(
      agent.stderr,
      `profile llama (auto: the hooks name llama-agent's tools in matcher "shell")`,
    );
    await agent.close();
  });
});

Deno.test("auto: hooks naming both tool worlds keep llama and say why", async () => {
  await withHookProject(async (p) => {
    const dir = await sessionWith(p, "mixed", guarding("Bash", "fs_write"));
    const agent = await deleteWith(p, "shell");
    const sessionId = await p.newSessionIn(agent, dir);
    await prompt(agent, sessionId);

    assertStringIncludes(
      agent.stderr,
      `profile llama (auto: the hooks name Claude Code's tools in matcher "Bash", but the ` +
        `hooks also name llama-agent's tools in matcher "fs_write"; pass --compat claude to ` +
        "offer Claude Code's)",
    );
    // The Bash guard never fires here, and the session says so, with what to do.
    const notices = noticesOf(agent, sessionId);
    assertEquals(notices.length, 1, JSON.stringify(notices));
    assertStringIncludes(notices[0]!, '1 hook never runs in this session (matcher "Bash"');
    assertStringIncludes(notices[0]!, "--compat claude");
    assertEquals(await guardRuns(dir), 0);
    assertEquals(await exists(`${dir}/victim/keep.txt`), false);
    await agent.close();
  });
});

Deno.test("auto: no hooks keep llama, without a notice", async () => {
  await withHookProject(async (p) => {
    const dir = await sessionWith(p, "none");
    const agent = await deleteWith(p, "shell");
    const sessionId = await p.newSessionIn(agent, dir);
    await prompt(agent, sessionId);

    assertEquals(noticesOf(agent, sessionId), []);
    assertStringIncludes(agent.stderr, "profile llama (auto: no hook names Claude Code's tools)");
    assertEquals(await exists(`${dir}/victim/keep.txt`), false);
    await agent.close();
  });
});

Deno.test("auto: --compat llama and the config file's compat still force llama over a Bash guard", async () => {
  await withHookProject(async (p) => {
    const dir = await sessionWith(p, "claude", guarding("Bash"));
    for (const force of ["flag", "file"] as const) {
      await Deno.mkdir(`${dir}/victim`, { recursive: true });
      await Deno.writeTextFile(`${dir}/victim/keep.txt`, "precious\n");
      const config = `${p.home}/.config/llama-agent/config.json`;
      await Deno.mkdir(`${p.home}/.config/llama-agent`, { recursive: true });
      await Deno.writeTextFile(config, force === "file" ? '{ "compat": "llama" }\n' : "{}\n");
      const agent = await deleteWith(p, "shell", force === "flag" ? ["--compat", "llama"] : []);
      const sessionId = await p.newSessionIn(agent, dir);
      await prompt(agent, sessionId);

      const notices = noticesOf(agent, sessionId);
      assertEquals(notices.length, 1, `${force}: ${JSON.stringify(notices)}`);
      assertStringIncludes(notices[0]!, "--compat claude", force);
      assertEquals(await guardRuns(dir), 0, force);
      assertEquals(await exists(`${dir}/victim/keep.txt`), false, force);
      const origin = force === "flag" ? "--compat" : `${config}:1: "compat"`;
      assert(
        agent.stderr.includes(`profile llama (set by ${origin})`),
        `${force}: ${agent.stderr}`,
      );
      await agent.close();
    }
  });
});
