/**
 * `--compat auto`'s decision: what each hook votes for (its matcher, its `if`, the tool names its
 * script compares `tool_name` with) and the profile the votes choose. Pure: scripts are read
 * through the function passed in.
 */
import { assertEquals } from "../helpers/assert.ts";
import type { HookEntry } from "../../src/hooks/lint/foreign_tool_references.ts";
import { parseIfRule } from "../../src/hooks/matching/if_rule.ts";
import {
  decideProfile,
  describeDecision,
  forcedDecision,
  profileEvidence,
} from "../../src/hooks/profile_decision.ts";
import { loadProfileChoice } from "../../src/hooks/profile_choice.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";

const PROJECT = "/project";

function hook(
  matcher: string | undefined,
  options: { if?: string; command?: string; event?: HookEntry["event"] } = {},
): HookEntry {
  return {
    event: options.event ?? "PreToolUse",
    matcherSource: matcher,
    ifRule: parseIfRule(options.if ?? ""),
    handler: { type: "command", command: options.command ?? "true" },
  };
}

const SCRIPTS: Record<string, string> = {
  "/project/.claude/hooks/claude.sh": 'jq -r .tool_name | grep -qx "Bash" || exit 0\n',
  "/project/.claude/hooks/llama.sh": 'if [ "$(jq -r .tool_name)" = "shell" ]; then exit 2; fi\n',
  "/project/.claude/hooks/both.sh": 'case "$tool_name" in Bash|shell) exit 2;; esac\n',
};

const readScript = (path: string) =>
  SCRIPTS[path] === undefined
    ? Promise.reject(new Deno.errors.NotFound(path))
    : Promise.resolve(SCRIPTS[path]!);

function evidenceOf(hooks: HookEntry[], pluginDirs: string[] = []) {
  return profileEvidence(hooks, { cwd: PROJECT, readScript, pluginDirs });
}

const script = (name: string) => `"$CLAUDE_PROJECT_DIR"/.claude/hooks/${name}`;

Deno.test("a hook votes for the profile its tool names run in: matcher, if rule, script", async () => {
  assertEquals(
    await evidenceOf([
      hook("Bash"),
      hook("Edit|Write"),
      hook(undefined, { if: "Bash(git push:*)" }),
      hook("*", { command: script("claude.sh") }),
    ]),
    {
      claude: [
        'matcher "Bash"',
        'matcher "Edit|Write"',
        '"if": "Bash(git push:*)"',
        'tool_name "Bash" in "$CLAUDE_PROJECT_DIR/.claude/hooks/claude.sh"',
      ],
      llama: [],
    },
  );
  assertEquals(
    await evidenceOf([
      hook("shell"),
      hook("^fs_.*"),
      hook(undefined, { if: "shell(git push:*)" }),
      hook(undefined, { command: script("llama.sh") }),
    ]),
    {
      claude: [],
      llama: [
        'matcher "shell"',
        'matcher "^fs_.*"',
        '"if": "shell(git push:*)"',
        'tool_name "shell" in "$CLAUDE_PROJECT_DIR/.claude/hooks/llama.sh"',
      ],
    },
  );
});

Deno.test("a hook written for both worlds, for neither, or off the tool events votes for nothing", async () => {
  assertEquals(
    await evidenceOf([
      hook("Bash|shell"),
      hook("*"),
      hook(undefined),
      hook("MultiEdit"),
      hook("mcp__github__.*"),
      hook("*", { command: script("both.sh") }),
      hook("*", { command: script("missing.sh") }),
      hook(undefined, { event: "Stop", command: script("claude.sh") }),
      hook("Bash", { event: "SessionStart" }),
    ]),
    { claude: [], llama: [] },
  );
});

Deno.test("plugin dirs asked for by name vote for claude, unless the hooks name llama-agent's tools", async () => {
  const asked = await evidenceOf([], ["/plugins/guard"]);
  assertEquals(asked, { claude: [], llama: [], pluginDirs: true });
  assertEquals(
    describeDecision(decideProfile(asked)),
    "claude (auto: --plugin-dir asks for plugins, which load only with Claude Code's tools)",
  );
  const both = decideProfile(await evidenceOf([hook("shell")], ["/plugins/guard"]));
  assertEquals(both.profile.id, "llama");
  assertEquals(
    both.reason,
    "--plugin-dir asks for plugins, which load only with Claude Code's tools, but the hooks " +
      `also name llama-agent's tools in matcher "shell"; pass --compat claude to offer ` +
      "Claude Code's",
  );
});

Deno.test("Claude Code's names alone choose claude; both, llama's alone or none keep llama", () => {
  const claude = decideProfile({ claude: ['matcher "Bash"', 'matcher "Edit|Write"'], llama: [] });
  assertEquals(
    describeDecision(claude),
    `claude (auto: the hooks name Claude Code's tools in matcher "Bash", matcher "Edit|Write")`,
  );
  const both = decideProfile({ claude: ['matcher "Bash"'], llama: ['matcher "shell"'] });
  assertEquals(
    describeDecision(both),
    `llama (auto: the hooks name Claude Code's tools in matcher "Bash", but the hooks also ` +
      `name llama-agent's tools in matcher "shell"; pass --compat claude to offer Claude Code's)`,
  );
  const ours = decideProfile({ claude: [], llama: ['matcher "shell"'] });
  assertEquals(ours.profile.id, "llama");
  assertEquals(ours.reason, `the hooks name llama-agent's tools in matcher "shell"`);
  const none = decideProfile({ claude: [], llama: [] });
  assertEquals(describeDecision(none), "llama (auto: no hook names Claude Code's tools)");
  const many = decideProfile({ claude: ["a", "b", "c", "d", "e"], llama: [] });
  assertEquals(many.reason, "the hooks name Claude Code's tools in a, b, c, and 2 more");
});

Deno.test("a forced profile says where it was set", () => {
  const forced = forcedDecision(compatProfile("claude"), "LLAMA_AGENT_COMPAT");
  assertEquals(describeDecision(forced), "claude (set by LLAMA_AGENT_COMPAT)");
  assertEquals(forced.auto, false);
});

Deno.test("a Notification matcher votes for the profile that sends its notification types", async () => {
  const notifier = (matcher: string | undefined) => hook(matcher, { event: "Notification" });
  const claude = await evidenceOf([notifier("permission_prompt"), notifier("idle_prompt|x")]);
  assertEquals(claude, {
    claude: [],
    llama: [],
    claudeNotifications: ['matcher "permission_prompt"', 'matcher "idle_prompt|x"'],
  });
  assertEquals(
    describeDecision(decideProfile(claude)),
    "claude (auto: the hooks wait for Claude Code's notification types in matcher " +
      '"permission_prompt", matcher "idle_prompt|x")',
  );
  const llama = await evidenceOf([notifier("agent_message"), notifier("permission_prompt")]);
  assertEquals(llama.llamaNotifications, ['matcher "agent_message"']);
  assertEquals(
    describeDecision(decideProfile(llama)),
    "llama (auto: the hooks wait for Claude Code's notification types in matcher " +
      '"permission_prompt", but the hooks also name llama-agent\'s notification types in ' +
      'matcher "agent_message"; pass --compat claude to offer Claude Code\'s)',
  );
  // No matcher, "*", or one that matches types of both: no vote.
  assertEquals(
    await evidenceOf([notifier(undefined), notifier("*"), notifier(".*_prompt|agent")]),
    {
      claude: [],
      llama: [],
    },
  );
});

Deno.test("auto reads each script its hooks name once, for both profiles' names and every hook naming it", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "profile_choice_" }));
  try {
    await Deno.mkdir(`${dir}/.claude/hooks`, { recursive: true });
    await Deno.writeTextFile(
      `${dir}/.claude/hooks/claude.sh`,
      SCRIPTS[
        "/project/.claude/hooks/claude.sh"
      ]!,
    );
    const command = { type: "command", command: script("claude.sh") };
    await Deno.writeTextFile(
      `${dir}/.claude/settings.json`,
      JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: "*", hooks: [command] }],
          PostToolUse: [{ matcher: "*", hooks: [command] }],
        },
      }),
    );
    const reads: string[] = [];
    const choice = await loadProfileChoice("auto", dir, `${dir}/no_home`, {
      readScript: (path) => (reads.push(path), Deno.readTextFile(path)),
    });
    assertEquals(choice.decision.profile.id, "claude");
    assertEquals(reads, [`${dir}/.claude/hooks/claude.sh`]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
