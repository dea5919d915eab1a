/** What PermissionRequest's `permission_suggestions` offer, Claude Code's way. */
import { claudePermissionSuggestions } from "../../src/agent/permissions/claude_permission_suggestions.ts";
import type { PermissionSuggestion } from "../../src/hooks/payload.ts";
import { assertEquals } from "../helpers/assert.ts";

const acceptEdits = (directory: string): PermissionSuggestion[] => [
  { type: "addDirectories", directories: [directory], destination: "session" },
  { type: "setMode", mode: "acceptEdits", destination: "session" },
];

Deno.test("touch in the project: its directory and acceptEdits, as Claude Code 2.1.332 offers", () => {
  assertEquals(
    JSON.stringify(claudePermissionSuggestions("Bash", "touch made.txt", "/proj")),
    '[{"type":"addDirectories","directories":["/proj"],"destination":"session"},' +
      '{"type":"setMode","mode":"acceptEdits","destination":"session"}]',
  );
});

Deno.test("the commands acceptEdits runs offer the directory of the first path they name", () => {
  const cases: [string, string][] = [
    ["mkdir -p build/out", "/proj/build"],
    ["rm -rf /tmp/scratch/x", "/tmp/scratch"],
    ["cp a.txt b.txt && mv b.txt c.txt", "/proj"],
    ["sed -i 's/a/b/' src/main.ts", "/proj/src"],
    ["mkdir -p", "/proj"],
  ];
  for (const [command, directory] of cases) {
    assertEquals(claudePermissionSuggestions("Bash", command, "/proj"), acceptEdits(directory));
  }
});

Deno.test("any other call is offered an allow rule for its tool, for the session", () => {
  const rule = (toolName: string): PermissionSuggestion[] => [
    { type: "addRules", rules: [{ toolName }], behavior: "allow", destination: "session" },
  ];
  for (const command of ["npm test", "touch a; npm test", "echo hi > out.txt", ""]) {
    assertEquals(claudePermissionSuggestions("Bash", command, "/proj"), rule("Bash"), command);
  }
  assertEquals(claudePermissionSuggestions("Write", undefined, "/proj"), rule("Write"));
});
