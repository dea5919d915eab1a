import { assertEquals } from "../helpers/assert.ts";
import {
  decidePermission,
  DEFAULT_PERMISSION_MODE,
  hookPermissionMode,
  isPermissionModeId,
  type PermissionModeId,
  sessionModes,
  sessionModeState,
} from "../../src/agent/permissions/permission_policy.ts";
import {
  parsePermissionRules,
  type PermissionRule,
} from "../../src/agent/permissions/permission_rules.ts";
import {
  capabilityOf as profileCapabilityOf,
  compatProfile,
} from "../../src/profile/compat_profile.ts";

const capabilityOf = (name: string) => profileCapabilityOf(compatProfile("llama"), name);

function rules(json: unknown): readonly PermissionRule[] {
  const loaded = parsePermissionRules(JSON.stringify(json), "rules.json");
  if (!loaded.ok) throw new Error(loaded.errors.join("\n"));
  return loaded.rules;
}

function decide(
  mode: PermissionModeId,
  toolName: string,
  options: {
    rules?: readonly PermissionRule[];
    allowed?: string[];
    rejected?: string[];
  } = {},
) {
  return decidePermission({
    mode,
    toolName,
    capability: capabilityOf(toolName),
    rules: options.rules ?? [],
    alwaysAllowed: new Set(options.allowed ?? []),
    alwaysRejected: new Set(options.rejected ?? []),
  });
}

const TOOLS = ["fs_read", "read_file", "fs_write", "shell", "terminal", "mcp__gh__issue"];

Deno.test("the three modes, their ACP listing and the hooks' permission_mode", () => {
  assertEquals(DEFAULT_PERMISSION_MODE, "auto-approve-reads");
  assertEquals(sessionModes().map((mode) => mode.id), [
    "always-ask",
    "auto-approve-reads",
    "rule-based",
  ]);
  for (const mode of sessionModes()) {
    assertEquals(typeof mode.name, "string");
    assertEquals(typeof mode.description, "string");
  }
  assertEquals(sessionModeState("rule-based").currentModeId, "rule-based");
  assertEquals(hookPermissionMode("always-ask"), "default");
  assertEquals(hookPermissionMode("auto-approve-reads"), "acceptEdits");
  assertEquals(hookPermissionMode("rule-based"), "acceptEdits");
  assertEquals(isPermissionModeId("rule-based"), true);
  assertEquals(isPermissionModeId("default"), false);
});

Deno.test("always-ask asks for every tool", () => {
  assertEquals(TOOLS.map((tool) => decide("always-ask", tool)), TOOLS.map(() => "ask"));
});

Deno.test("auto-approve-reads runs fs_read under any of its names and asks for the rest", () => {
  assertEquals(TOOLS.map((tool) => decide("auto-approve-reads", tool)), [
    "allow",
    "allow",
    "ask",
    "ask",
    "ask",
    "ask",
  ]);
});

Deno.test("rule-based: the first matching rule decides, no match asks", () => {
  const set = rules({
    rules: [
      { tool: "fs_read", decision: "allow" },
      { tool: "shell|terminal", decision: "deny" },
      { tool: "fs_.*", decision: "ask" },
      { tool: "mcp__gh__.*", decision: "allow" },
      { tool: "fs_write", decision: "allow" },
    ],
  });
  assertEquals(TOOLS.map((tool) => decide("rule-based", tool, { rules: set })), [
    "allow",
    // read_file is fs_read by another name: the fs_read rule holds for it.
    "allow",
    "ask",
    "deny",
    "deny",
    "allow",
  ]);
  assertEquals(decide("rule-based", "shell", { rules: [] }), "ask");
});

Deno.test("rules are ignored outside rule-based mode", () => {
  const set = rules({ rules: [{ tool: "*", decision: "deny" }] });
  assertEquals(decide("auto-approve-reads", "fs_read", { rules: set }), "allow");
  assertEquals(decide("always-ask", "shell", { rules: set }), "ask");
});

Deno.test("allow_always earlier in the session allows that tool name only", () => {
  for (const mode of ["always-ask", "auto-approve-reads", "rule-based"] as const) {
    assertEquals(decide(mode, "shell", { allowed: ["shell"] }), "allow");
    assertEquals(
      decide(mode, "terminal", { allowed: ["shell"] }),
      "ask",
    );
  }
  const askShell = rules({ rules: [{ tool: "shell", decision: "ask" }] });
  assertEquals(decide("rule-based", "shell", { rules: askShell, allowed: ["shell"] }), "allow");
});

Deno.test("a rule-based deny is not lifted by an earlier allow_always", () => {
  const denyShell = rules({ rules: [{ tool: "shell", decision: "deny" }] });
  assertEquals(decide("rule-based", "shell", { rules: denyShell, allowed: ["shell"] }), "deny");
});

Deno.test("reject_always earlier in the session denies that tool in every mode", () => {
  const allowAll = rules({ rules: [{ tool: "*", decision: "allow" }] });
  assertEquals(decide("auto-approve-reads", "fs_read", { rejected: ["fs_read"] }), "deny");
  assertEquals(decide("always-ask", "shell", { rejected: ["shell"] }), "deny");
  assertEquals(decide("rule-based", "shell", { rules: allowAll, rejected: ["shell"] }), "deny");
  assertEquals(decide("rule-based", "fs_write", { rules: allowAll, rejected: ["shell"] }), "allow");
});

Deno.test("a rule about a capability holds under every name of it, in both profiles", () => {
  const set = rules({
    rules: [{ tool: "shell", decision: "deny" }, { tool: "*", decision: "allow" }],
  });
  const ask = (toolName: string, capability: "shell" | "fs_edit") =>
    decidePermission({
      mode: "rule-based",
      toolName,
      capability,
      rules: set,
      alwaysAllowed: new Set(),
      alwaysRejected: new Set(),
    });
  // A deny written for llama-agent's name is not walked around by an alias or Claude Code's name.
  assertEquals(ask("terminal", "shell"), "deny");
  assertEquals(ask("Bash", "shell"), "deny");
  assertEquals(ask("Edit", "fs_edit"), "allow");
  const claudeRules = rules({ rules: [{ tool: "Bash", decision: "deny" }] });
  assertEquals(
    decidePermission({
      mode: "rule-based",
      toolName: "shell",
      capability: "shell",
      rules: claudeRules,
      alwaysAllowed: new Set(),
      alwaysRejected: new Set(),
    }),
    "deny",
  );
});
