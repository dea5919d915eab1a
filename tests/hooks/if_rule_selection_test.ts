/**
 * Handler-level `if` from the settings file to the selection (claude-compat.md §7): read once
 * when the chain loads, tested after the matcher, part of what dedup compares, and never true on
 * an event that has no tool call.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { buildRegistry, type IfSubject, selectRegistrations } from "../../src/hooks/registry.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";
import { hooksFile, load, type TempChain, withChain } from "./temp_chain.ts";

const hook = (command: string, ifSource?: string) => ({
  type: "command",
  command,
  ...(ifSource === undefined ? {} : { if: ifSource }),
});

const bashCall = (dirs: TempChain, command: string): IfSubject => ({
  profile: compatProfile("claude"),
  projectDir: dirs.cwd,
  toolInput: { command },
});

const commandsOf = (list: readonly { handler: { type: string } }[]) =>
  list.map(({ handler }) => "command" in handler ? handler.command : handler.type);

Deno.test('a string "if" is parsed when the chain loads and kept on the registration', async () => {
  const text = hooksFile({
    PreToolUse: [{ hooks: [hook("a", "Bash(git commit:*)"), hook("b"), hook("c", "")] }],
  });
  await withChain({ project: text }, async (dirs) => {
    const loaded = await load(dirs);
    assertEquals(loaded.diagnostics, []);
    assertEquals(loaded.handlers.map((h) => h.ifRule), [
      { source: "Bash(git commit:*)", toolName: "Bash", pattern: "git commit:*" },
      null,
      null,
    ]);
    assertEquals(buildRegistry(loaded).registrations.map((r) => r.ifRule), [
      { source: "Bash(git commit:*)", toolName: "Bash", pattern: "git commit:*" },
      null,
      null,
    ]);
  });
});

Deno.test('on a tool event a hook runs only when its "if" matches the call', async () => {
  const text = hooksFile({
    PreToolUse: [{ hooks: [hook("commit-guard", "Bash(git commit:*)"), hook("always", "")] }],
    PostToolUse: [{ matcher: "Bash", hooks: [hook("after-echo", "Bash(echo *)")] }],
  });
  await withChain({ project: text }, async (dirs) => {
    const registry = buildRegistry(await load(dirs));
    const commit = selectRegistrations(
      registry,
      "PreToolUse",
      "Bash",
      bashCall(dirs, "git commit -m x"),
    );
    assertEquals(commandsOf(commit.matched), ["commit-guard", "always"]);
    const ls = selectRegistrations(registry, "PreToolUse", "Bash", bashCall(dirs, "ls"));
    assertEquals(commandsOf(ls.matched), ["always"]);
    assertEquals(ls.unmatched.map((u) => u.reason), ['if "Bash(git commit:*)" does not match']);
    const after = selectRegistrations(registry, "PostToolUse", "Bash", bashCall(dirs, "echo hi"));
    assertEquals(commandsOf(after.matched), ["after-echo"]);
  });
});

Deno.test('an "if" on an event without a tool call never runs; its sibling does', async () => {
  const text = hooksFile({
    SessionStart: [{ hooks: [hook("start-if", "Bash(echo *)"), hook("start")] }],
    UserPromptSubmit: [{ hooks: [hook("prompt-if", "Bash"), hook("prompt")] }],
    Stop: [{ hooks: [hook("stop-if", "Bash(*)"), hook("stop")] }],
  });
  await withChain({ project: text }, async (dirs) => {
    const registry = buildRegistry(await load(dirs));
    const subject = bashCall(dirs, "echo hi");
    const start = selectRegistrations(registry, "SessionStart", "startup", subject);
    assertEquals(commandsOf(start.matched), ["start"]);
    assertEquals(start.unmatched.map((u) => u.reason), [
      '"if" is not evaluated on "SessionStart", which is not a tool event: the hook never runs',
    ]);
    assertEquals(commandsOf(selectRegistrations(registry, "UserPromptSubmit", null).matched), [
      "prompt",
    ]);
    assertEquals(commandsOf(selectRegistrations(registry, "Stop", null, subject).matched), [
      "stop",
    ]);
  });
});

Deno.test('a copy whose "if" fails never hides one that runs', async () => {
  const user = hooksFile({ PreToolUse: [{ hooks: [hook("./guard.sh", "Bash(git *)")] }] });
  const project = hooksFile({ PreToolUse: [{ hooks: [hook("./guard.sh")] }] });
  await withChain({ user, project }, async (dirs) => {
    const registry = buildRegistry(await load(dirs));
    const ls = selectRegistrations(registry, "PreToolUse", "Bash", bashCall(dirs, "ls"));
    assertEquals(ls.matched.map((r) => r.id), ["project:/hooks/PreToolUse/0/hooks/0"]);
    assertEquals(ls.unmatched.map((u) => [u.registration.id, u.reason]), [
      ["user:/hooks/PreToolUse/0/hooks/0", 'if "Bash(git *)" does not match'],
    ]);
  });
});

// Claude Code keys dedup on the command and the `if` rule together: the same command under two
// rules is two handlers, one spawn for each rule that holds (claude-compat.md §7).
Deno.test('the same command under different "if" rules runs once per rule that matches', async () => {
  const text = hooksFile({
    PreToolUse: [{
      matcher: "Bash",
      hooks: [hook("./review.sh", "Bash(git commit:*)"), hook("./review.sh", "Bash(git *)")],
    }],
  });
  await withChain({ project: text }, async (dirs) => {
    const registry = buildRegistry(await load(dirs));
    const commit = selectRegistrations(
      registry,
      "PreToolUse",
      "Bash",
      bashCall(dirs, "git commit -m x"),
    );
    assertEquals(commit.matched.map((r) => r.id), [
      "project:/hooks/PreToolUse/0/hooks/0",
      "project:/hooks/PreToolUse/0/hooks/1",
    ]);
    assertEquals(commit.unmatched, []);
    const status = selectRegistrations(
      registry,
      "PreToolUse",
      "Bash",
      bashCall(dirs, "git status"),
    );
    assertEquals(status.matched.map((r) => r.id), ["project:/hooks/PreToolUse/0/hooks/1"]);
  });
});

Deno.test('a handler with an "if" is not a duplicate of the same handler without one', async () => {
  const user = hooksFile({ PreToolUse: [{ hooks: [hook("./guard.sh", "Bash(git *)")] }] });
  const project = hooksFile({ PreToolUse: [{ hooks: [hook("./guard.sh")] }] });
  await withChain({ user, project }, async (dirs) => {
    const registry = buildRegistry(await load(dirs));
    const git = selectRegistrations(registry, "PreToolUse", "Bash", bashCall(dirs, "git status"));
    assertEquals(git.matched.map((r) => r.id), [
      "user:/hooks/PreToolUse/0/hooks/0",
      "project:/hooks/PreToolUse/0/hooks/0",
    ]);
  });
});

Deno.test('the same command and the same "if" in two files runs once', async () => {
  const user = hooksFile({ PreToolUse: [{ hooks: [hook("./guard.sh", "Bash(git *)")] }] });
  const project = hooksFile({
    PreToolUse: [{ matcher: "Bash", hooks: [hook("./guard.sh", "Bash(git *)")] }],
  });
  const local = hooksFile({
    PreToolUse: [{ hooks: [hook("./other.sh", ""), hook("./other.sh")] }],
  });
  await withChain({ user, project, local }, async (dirs) => {
    const registry = buildRegistry(await load(dirs));
    const git = selectRegistrations(registry, "PreToolUse", "Bash", bashCall(dirs, "git status"));
    assertEquals(git.matched.map((r) => r.id), [
      "user:/hooks/PreToolUse/0/hooks/0",
      "local:/hooks/PreToolUse/0/hooks/0",
    ]);
    assertEquals(git.unmatched.map((u) => [u.registration.id, u.reason]), [
      ["project:/hooks/PreToolUse/0/hooks/0", "duplicate of user:/hooks/PreToolUse/0/hooks/0"],
      ["local:/hooks/PreToolUse/0/hooks/1", "duplicate of local:/hooks/PreToolUse/0/hooks/0"],
    ]);
  });
});

Deno.test('the matcher comes before "if": a hook whose matcher fails says so', async () => {
  const text = hooksFile({ PreToolUse: [{ matcher: "Write", hooks: [hook("w", "Bash")] }] });
  await withChain({ project: text }, async (dirs) => {
    const registry = buildRegistry(await load(dirs));
    const selection = selectRegistrations(registry, "PreToolUse", "Bash", bashCall(dirs, "ls"));
    assertEquals(selection.unmatched.map((u) => u.reason), [
      'matcher "Write" does not match "Bash"',
    ]);
  });
});

Deno.test('without the tool call an "if" on a tool event does not hold', async () => {
  const text = hooksFile({ PreToolUse: [{ hooks: [hook("guard", "Bash")] }] });
  await withChain({ project: text }, async (dirs) => {
    const selection = selectRegistrations(buildRegistry(await load(dirs)), "PreToolUse", "Bash");
    assertEquals(selection.matched, []);
    assert(
      selection.unmatched[0]?.reason.includes("no tool input"),
      selection.unmatched[0]?.reason,
    );
  });
});

Deno.test('an "if" that can never match loads without a diagnostic and says why it never runs', async () => {
  const text = hooksFile({ PreToolUse: [{ hooks: [hook("alt", "Bash(git *)|Bash(echo *)")] }] });
  await withChain({ project: text }, async (dirs) => {
    const loaded = await load(dirs);
    assertEquals(loaded.diagnostics, []);
    const selection = selectRegistrations(
      buildRegistry(loaded),
      "PreToolUse",
      "Bash",
      bashCall(dirs, "echo hi"),
    );
    assertEquals(selection.matched, []);
    const reason = selection.unmatched[0]?.reason ?? "";
    assert(reason.startsWith('if "Bash(git *)|Bash(echo *)" never matches: Alternation'), reason);
  });
});

Deno.test('in profile llama a rule names "shell", and "Bash(...)" never matches', async () => {
  const text = hooksFile({
    PreToolUse: [{ hooks: [hook("llama", "shell(git commit:*)"), hook("claude", "Bash")] }],
  });
  await withChain({ project: text }, async (dirs) => {
    const selection = selectRegistrations(buildRegistry(await load(dirs)), "PreToolUse", "shell", {
      profile: compatProfile("llama"),
      projectDir: dirs.cwd,
      toolInput: { command: "git commit -m x" },
    });
    assertEquals(commandsOf(selection.matched), ["llama"]);
  });
});
