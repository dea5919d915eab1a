import { assertEquals } from "../helpers/assert.ts";
import {
  permissionAnswer,
  permissionOptions,
  rememberAnswer,
} from "../../src/agent/permissions/permission_request.ts";

Deno.test("the four options carry their kind as their id", () => {
  assertEquals(permissionOptions("shell"), [
    { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
    { optionId: "allow_always", name: "Always allow shell", kind: "allow_always" },
    { optionId: "reject_once", name: "Reject", kind: "reject_once" },
    { optionId: "reject_always", name: "Always reject shell", kind: "reject_always" },
  ]);
});

Deno.test("each answer maps to allow or deny, once or always", () => {
  const selected = (optionId: string) =>
    permissionAnswer({ outcome: { outcome: "selected", optionId } });
  assertEquals(selected("allow_once"), { decision: "allow", always: false, cancelled: false });
  assertEquals(selected("allow_always"), { decision: "allow", always: true, cancelled: false });
  assertEquals(selected("reject_once"), { decision: "deny", always: false, cancelled: false });
  assertEquals(selected("reject_always"), { decision: "deny", always: true, cancelled: false });
});

Deno.test("a cancelled prompt, an unknown option and a malformed answer are refusals", () => {
  assertEquals(permissionAnswer({ outcome: { outcome: "cancelled" } }), {
    decision: "deny",
    always: false,
    cancelled: true,
  });
  const refused = { decision: "deny", always: false, cancelled: false };
  assertEquals(permissionAnswer({ outcome: { outcome: "selected", optionId: "yes" } }), refused);
  assertEquals(permissionAnswer({ outcome: "selected" }), refused);
  assertEquals(permissionAnswer(undefined), refused);
});

Deno.test("always answers are remembered per tool name; the latest one wins", () => {
  const memory = { alwaysAllowed: new Set<string>(), alwaysRejected: new Set<string>() };
  rememberAnswer(memory, "shell", { decision: "allow", always: false, cancelled: false });
  assertEquals([...memory.alwaysAllowed, ...memory.alwaysRejected], []);
  rememberAnswer(memory, "shell", { decision: "allow", always: true, cancelled: false });
  assertEquals([...memory.alwaysAllowed], ["shell"]);
  rememberAnswer(memory, "shell", { decision: "deny", always: true, cancelled: false });
  assertEquals([...memory.alwaysAllowed], []);
  assertEquals([...memory.alwaysRejected], ["shell"]);
});
