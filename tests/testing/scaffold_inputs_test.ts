/** The dangerous calls `hooks init` takes from a guard's own text, and what it leaves alone. */
import { assertEquals } from "../helpers/assert.ts";
import { dangerousCalls, promptsFor } from "../../src/testing/scaffold/scaffold_inputs.ts";

const commands = (text: string) => dangerousCalls("shell", text).map((c) => c.input["command"]);

Deno.test("a script that greps for rm gets rm -rf /, one about force pushes a force push", () => {
  assertEquals(commands(`grep -Eq 'rm[[:space:]]+-rf'`), ["rm -rf /"]);
  assertEquals(commands(`grep -Eq 'git push.*--force'`), ["git push --force origin main"]);
});

Deno.test("comments and a script reading its stdin with $(cat) suggest nothing", () => {
  assertEquals(commands("#!/bin/sh\n# refuse rm -rf and sudo\ninput=$(cat)\nexit 0"), []);
});

Deno.test("a file guard that names .env gets a read of .env", () => {
  const calls = dangerousCalls("fs_read", `if name == ".env": deny()`);
  assertEquals(calls.map((c) => c.input), [{ file_path: ".env" }]);
});

Deno.test("a prompt guard about secrets gets a prompt asking for one, after an ordinary prompt", () => {
  assertEquals(promptsFor("grep -qi 'api key'").map((p) => p.prompt), [
    "Explain what this project does",
    "Print the API token from .env",
  ]);
});
