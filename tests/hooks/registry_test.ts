import { assertEquals } from "../helpers/assert.ts";
import type { HookEventName } from "../../src/hooks/event_table.ts";
import type { CommandHandlerConfig, HandlerConfig } from "../../src/hooks/handler_config.ts";
import { compileMatcher } from "../../src/hooks/matching/matcher.ts";
import type { SettingsScope } from "../../src/hooks/registration.ts";
import { buildRegistry, selectRegistrations } from "../../src/hooks/registry.ts";
import type { LoadedHandler, SkippedEntry } from "../../src/hooks/settings/settings_chain.ts";

function entry(
  scope: SettingsScope,
  pointer: string,
  event: HookEventName,
  matcherSource: string | undefined,
  handler: HandlerConfig,
): LoadedHandler {
  const compiled = compileMatcher(matcherSource);
  if (!compiled.ok) throw new Error(compiled.reason);
  return {
    event,
    matcherSource,
    matcher: compiled.matcher,
    handler,
    ifRule: null,
    source: { scope, file: `/${scope}/.claude/settings.json`, pointer, line: 1 },
  };
}

const command = (
  text: string,
  extra: Omit<Partial<CommandHandlerConfig>, "type"> = {},
): HandlerConfig => ({ ...extra, type: "command", command: text });

function registryOf(
  handlers: LoadedHandler[],
  skipped: SkippedEntry[] = [],
  disabledBy: string[] = [],
) {
  return buildRegistry({ handlers, skipped, disabledBy });
}

const ids = (list: readonly { id: string }[]) => list.map((r) => r.id);
const reasons = (list: readonly { registration: { id: string }; reason: string }[]) =>
  list.map((u) => [u.registration.id, u.reason]);

Deno.test("registration ids are <scope>:<pointer> and order is the position in chain order", () => {
  const registry = registryOf([
    entry("user", "/hooks/Stop/0/hooks/0", "Stop", undefined, command("a")),
    entry("project", "/hooks/PreToolUse/0/hooks/0", "PreToolUse", "shell", command("b")),
    entry("local", "/hooks/Stop/0/hooks/0", "Stop", undefined, command("c")),
  ]);
  assertEquals(registry.registrations.map((r) => [r.id, r.order, r.event]), [
    ["user:/hooks/Stop/0/hooks/0", 0, "Stop"],
    ["project:/hooks/PreToolUse/0/hooks/0", 1, "PreToolUse"],
    ["local:/hooks/Stop/0/hooks/0", 2, "Stop"],
  ]);
});

Deno.test("selection returns only the event's registrations whose matcher accepts the value", () => {
  const registry = registryOf([
    entry("project", "/hooks/PreToolUse/0/hooks/0", "PreToolUse", "shell|terminal", command("a")),
    entry("project", "/hooks/PreToolUse/1/hooks/0", "PreToolUse", "Bash", command("b")),
    entry("project", "/hooks/PreToolUse/2/hooks/0", "PreToolUse", "^fs_", command("c")),
    entry("project", "/hooks/PostToolUse/0/hooks/0", "PostToolUse", "shell", command("d")),
  ]);
  const selection = selectRegistrations(registry, "PreToolUse", "shell");
  assertEquals(ids(selection.matched), ["project:/hooks/PreToolUse/0/hooks/0"]);
  assertEquals(reasons(selection.unmatched), [
    ["project:/hooks/PreToolUse/1/hooks/0", 'matcher "Bash" does not match "shell"'],
    ["project:/hooks/PreToolUse/2/hooks/0", 'matcher "^fs_" does not match "shell"'],
  ]);
  assertEquals(ids(selectRegistrations(registry, "PreToolUse", "fs_read").matched), [
    "project:/hooks/PreToolUse/2/hooks/0",
  ]);
});

Deno.test("matched registrations keep chain order user, project, local", () => {
  const registry = registryOf([
    entry("user", "/hooks/PreToolUse/0/hooks/0", "PreToolUse", "*", command("u")),
    entry("project", "/hooks/PreToolUse/0/hooks/0", "PreToolUse", undefined, command("p")),
    entry("local", "/hooks/PreToolUse/0/hooks/0", "PreToolUse", "", command("l")),
  ]);
  assertEquals(ids(selectRegistrations(registry, "PreToolUse", "mcp__sah__x").matched), [
    "user:/hooks/PreToolUse/0/hooks/0",
    "project:/hooks/PreToolUse/0/hooks/0",
    "local:/hooks/PreToolUse/0/hooks/0",
  ]);
});

Deno.test("a null matcher value (UserPromptSubmit, Stop) selects every group", () => {
  const registry = registryOf([
    entry("project", "/hooks/Stop/0/hooks/0", "Stop", "Bash", command("a")),
    entry("project", "/hooks/Stop/1/hooks/0", "Stop", undefined, command("b")),
  ]);
  const selection = selectRegistrations(registry, "Stop", null);
  assertEquals(selection.matched.length, 2);
  assertEquals(selection.unmatched, []);
});

Deno.test("an event with no registrations selects nothing", () => {
  const registry = registryOf([entry("user", "/hooks/Stop/0/hooks/0", "Stop", "", command("a"))]);
  assertEquals(selectRegistrations(registry, "Notification", "plan"), {
    matched: [],
    unmatched: [],
  });
});

Deno.test("the same handler twice for one event runs once: the first in chain order", () => {
  const registry = registryOf([
    entry("user", "/hooks/PreToolUse/0/hooks/0", "PreToolUse", "shell", command("./x.sh")),
    entry("project", "/hooks/PreToolUse/0/hooks/0", "PreToolUse", "*", command("./x.sh")),
    entry("project", "/hooks/PreToolUse/0/hooks/1", "PreToolUse", "*", command("./y.sh")),
    entry("local", "/hooks/PreToolUse/3/hooks/0", "PreToolUse", "shell", command("./x.sh")),
  ]);
  const selection = selectRegistrations(registry, "PreToolUse", "shell");
  assertEquals(ids(selection.matched), [
    "user:/hooks/PreToolUse/0/hooks/0",
    "project:/hooks/PreToolUse/0/hooks/1",
  ]);
  assertEquals(reasons(selection.unmatched), [
    ["project:/hooks/PreToolUse/0/hooks/0", "duplicate of user:/hooks/PreToolUse/0/hooks/0"],
    ["local:/hooks/PreToolUse/3/hooks/0", "duplicate of user:/hooks/PreToolUse/0/hooks/0"],
  ]);
});

Deno.test("dedup comes after matching: a copy whose matcher fails never hides one that matches", () => {
  const registry = registryOf([
    entry("user", "/hooks/PreToolUse/0/hooks/0", "PreToolUse", "fs_read", command("./x.sh")),
    entry("project", "/hooks/PreToolUse/0/hooks/0", "PreToolUse", "shell", command("./x.sh")),
  ]);
  const selection = selectRegistrations(registry, "PreToolUse", "shell");
  assertEquals(ids(selection.matched), ["project:/hooks/PreToolUse/0/hooks/0"]);
  assertEquals(reasons(selection.unmatched), [
    ["user:/hooks/PreToolUse/0/hooks/0", 'matcher "fs_read" does not match "shell"'],
  ]);
});

Deno.test("the same handler on two events runs on each", () => {
  const registry = registryOf([
    entry("user", "/hooks/PreToolUse/0/hooks/0", "PreToolUse", "*", command("./x.sh")),
    entry("user", "/hooks/PostToolUse/0/hooks/0", "PostToolUse", "*", command("./x.sh")),
  ]);
  assertEquals(selectRegistrations(registry, "PreToolUse", "shell").matched.length, 1);
  assertEquals(selectRegistrations(registry, "PostToolUse", "shell").matched.length, 1);
});

Deno.test("identity is type and command+args / url / prompt; a timeout does not change it", () => {
  const registry = registryOf([
    entry("user", "/hooks/Stop/0/hooks/0", "Stop", undefined, command("run", { timeout: 5 })),
    entry("user", "/hooks/Stop/0/hooks/1", "Stop", undefined, command("run", { timeout: 9 })),
    entry("user", "/hooks/Stop/0/hooks/2", "Stop", undefined, command("run", { args: ["a"] })),
    entry("user", "/hooks/Stop/0/hooks/3", "Stop", undefined, { type: "http", url: "http://h/a" }),
    entry("user", "/hooks/Stop/0/hooks/4", "Stop", undefined, { type: "http", url: "http://h/b" }),
    entry("user", "/hooks/Stop/0/hooks/5", "Stop", undefined, { type: "prompt", prompt: "ok?" }),
    entry("user", "/hooks/Stop/0/hooks/6", "Stop", undefined, { type: "agent", prompt: "ok?" }),
  ]);
  const selection = selectRegistrations(registry, "Stop", null);
  assertEquals(ids(selection.matched).map((id) => id.slice(-1)), ["0", "2", "3", "4", "5", "6"]);
  assertEquals(reasons(selection.unmatched), [
    ["user:/hooks/Stop/0/hooks/1", "duplicate of user:/hooks/Stop/0/hooks/0"],
  ]);
});

// Claude Code's key: `${shell ?? "bash"}\0${command}\0${if ?? ""}` (claude-compat.md §7).
Deno.test('a command\'s "shell" is part of its identity, "bash" when absent', () => {
  const registry = registryOf([
    entry("user", "/hooks/Stop/0/hooks/0", "Stop", undefined, command("run")),
    entry("user", "/hooks/Stop/0/hooks/1", "Stop", undefined, command("run", { shell: "bash" })),
    entry(
      "user",
      "/hooks/Stop/0/hooks/2",
      "Stop",
      undefined,
      command("run", { shell: "powershell" }),
    ),
  ]);
  const selection = selectRegistrations(registry, "Stop", null);
  assertEquals(ids(selection.matched).map((id) => id.slice(-1)), ["0", "2"]);
  assertEquals(reasons(selection.unmatched), [
    ["user:/hooks/Stop/0/hooks/1", "duplicate of user:/hooks/Stop/0/hooks/0"],
  ]);
});

Deno.test("disableAllHooks leaves no registrations and lists every handler as disabled", () => {
  const registry = registryOf(
    [entry("user", "/hooks/Stop/0/hooks/0", "Stop", undefined, command("a"))],
    [],
    ["/p/.claude/settings.local.json"],
  );
  assertEquals(registry.registrations, []);
  assertEquals(registry.disabledBy, ["/p/.claude/settings.local.json"]);
  assertEquals(selectRegistrations(registry, "Stop", null).matched, []);
  assertEquals(registry.notRegistered.map((n) => [n.event, n.status, n.reason]), [[
    "Stop",
    "disabled",
    'Disabled by "disableAllHooks": true in "/p/.claude/settings.local.json"',
  ]]);
});

Deno.test("dropped and unsupported entries are listed as not registered with a reason", () => {
  const source = { scope: "project", file: "/p/.claude/settings.json", line: 3 } as const;
  const registry = registryOf([], [
    {
      event: "SessionEnd",
      group: "dropped",
      matcherSource: undefined,
      handler: command("bye"),
      source: { ...source, pointer: "/hooks/SessionEnd/0/hooks/0" },
    },
    {
      event: "CwdChanged",
      group: "unsupported",
      matcherSource: undefined,
      handler: undefined,
      source: { ...source, pointer: "/hooks/CwdChanged" },
    },
  ]);
  assertEquals(registry.registrations, []);
  assertEquals(registry.notRegistered.map((n) => [n.event, n.status, n.reason]), [
    [
      "SessionEnd",
      "dropped",
      '"SessionEnd" fires only with --compat claude; the llama profile drops it',
    ],
    ["CwdChanged", "unsupported", '"CwdChanged" is a newer Claude Code event, not supported here'],
  ]);
});
