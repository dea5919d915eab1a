import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import {
  acceptedToolNames,
  capabilityOf,
  chooseCompatProfile,
  compatProfile,
  toolNameOf,
} from "../../src/profile/compat_profile.ts";
import { TOOL_CAPABILITIES } from "../../src/profile/tool_identity.ts";

const env = (table: Record<string, string>) => (name: string) => table[name];

Deno.test("the flag wins over LLAMA_AGENT_COMPAT, which wins over the default, auto", () => {
  const both = chooseCompatProfile("llama", env({ LLAMA_AGENT_COMPAT: "claude" }));
  assert(both.ok);
  assertEquals(both.setting, compatProfile("llama"));
  assertEquals(both.origin, "--compat");
  const fromEnv = chooseCompatProfile(undefined, env({ LLAMA_AGENT_COMPAT: "claude" }));
  assert(fromEnv.ok);
  assertEquals(fromEnv.setting, compatProfile("claude"));
  assertEquals(fromEnv.origin, "LLAMA_AGENT_COMPAT");
  const neither = chooseCompatProfile(undefined, env({ LLAMA_AGENT_COMPAT: "" }));
  assert(neither.ok);
  assertEquals(neither.setting, "auto");
  const asked = chooseCompatProfile("auto", env({ LLAMA_AGENT_COMPAT: "claude" }));
  assert(asked.ok);
  assertEquals(asked.setting, "auto");
});

Deno.test("a bad value names where it came from and the choices there are", () => {
  const bad = chooseCompatProfile(undefined, env({ LLAMA_AGENT_COMPAT: "Claude" }));
  assert(!bad.ok);
  assertStringIncludes(
    bad.message,
    'LLAMA_AGENT_COMPAT must be one of "auto", "llama", "claude", not "Claude"',
  );
  const flag = chooseCompatProfile("codex", env({}));
  assert(!flag.ok);
  assertStringIncludes(
    flag.message,
    '--compat must be one of "auto", "llama", "claude", not "codex"',
  );
});

Deno.test("every profile names every capability once", () => {
  for (const id of ["llama", "claude"] as const) {
    const profile = compatProfile(id);
    assertEquals(profile.tools.map((t) => t.capability).sort(), [...TOOL_CAPABILITIES].sort());
    const names = acceptedToolNames(profile);
    assertEquals(new Set(names).size, names.length, `${id} names a tool twice`);
  }
});

Deno.test("the claude profile accepts Claude Code's names only: no alias walks around a guard", () => {
  const claude = compatProfile("claude");
  assertEquals(capabilityOf(claude, "Bash"), "shell");
  assertEquals(capabilityOf(claude, "Edit"), "fs_edit");
  assertEquals(capabilityOf(claude, "shell"), undefined);
  assertEquals(capabilityOf(claude, "terminal"), undefined);
  assertEquals(capabilityOf(claude, "bash"), undefined);
  assertEquals(toolNameOf(claude, "fs_grep"), "Grep");
});

Deno.test("the llama profile offers its own names and accepts their aliases", () => {
  const llama = compatProfile("llama");
  assertEquals(capabilityOf(llama, "terminal"), "shell");
  assertEquals(capabilityOf(llama, "edit_file"), "fs_edit");
  assertEquals(capabilityOf(llama, "Bash"), undefined);
  assertEquals(toolNameOf(llama, "fs_glob"), "fs_glob");
});
