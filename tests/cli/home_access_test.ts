import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { homeAccessProblem, launcherDir } from "../../src/cli/home_access.ts";

/** A grant of everything under /home, as the compiled Linux binary has. */
const underHome = (d: Deno.PermissionDescriptor) =>
  "path" in d && typeof d.path === "string" && d.path.startsWith("/home/") ? "granted" : "prompt";

Deno.test("under the compiled binary a $HOME outside its grant names the binary and what to do", () => {
  assertEquals(homeAccessProblem("/home/ada", { query: underHome }), undefined);
  // A comma is an ordinary character there: the grant is /home, not a list built from $HOME.
  assertEquals(homeAccessProblem("/home/Lovelace, Ada", { query: underHome }), undefined);
  const problem = homeAccessProblem("/srv/users/ada", { query: underHome }) ?? "";
  assertStringIncludes(problem, 'cannot read and write your home directory "/srv/users/ada"');
  assertStringIncludes(problem, "this llama-agent binary may only use");
  assertStringIncludes(problem, "Set HOME");
});

Deno.test("under the launcher a $HOME Deno did not grant names the launcher, not a binary", () => {
  const problem = homeAccessProblem("/srv/users/ada", {
    query: underHome,
    launcherDir: "/opt/llama-agent",
  }) ?? "";
  assertEquals(
    problem,
    'cannot read and write your home directory "/srv/users/ada": ' +
      '"/opt/llama-agent/bin/llama-agent" asked Deno for exactly this directory and Deno did ' +
      "not grant it; run llama-agent with the Deno it pins (unset LLAMA_AGENT_DENO)",
  );
});

Deno.test("a relative $HOME is refused whatever the grant; an unset or empty one is not checked", () => {
  const everything = () => "granted" as const;
  for (const home of ["home", ".", "../ada", "~"]) {
    assertEquals(
      homeAccessProblem(home, { query: everything }),
      `HOME is "${home}", a relative path: set it to the absolute path of your home directory`,
    );
  }
  const nothing = () => "prompt" as const;
  assertEquals(homeAccessProblem(undefined, { query: nothing }), undefined);
  assertEquals(homeAccessProblem("", { query: nothing }), undefined);
});

Deno.test("the launcher's variables count only in the process it started", () => {
  const own = {
    installDir: "/opt/llama agent",
    launchDir: "/work/a,b",
    cwd: "/work/a,b",
    mainDir: "file:///opt/llama%20agent/",
  };
  assertEquals(launcherDir(own), "/opt/llama agent");
  // Inherited by a program started elsewhere, or by another llama-agent: not this process's.
  assertEquals(launcherDir({ ...own, cwd: "/work/other" }), undefined);
  assertEquals(
    launcherDir({ ...own, mainDir: "file:///tmp/deno-compile-llama-agent/" }),
    undefined,
  );
  assertEquals(launcherDir({ ...own, installDir: undefined }), undefined);
  assertEquals(launcherDir({ ...own, installDir: "" }), undefined);
  assertEquals(launcherDir({ ...own, launchDir: undefined }), undefined);
  assert(launcherDir({ ...own, mainDir: "https://example.com/opt/llama%20agent/" }) === undefined);
});
