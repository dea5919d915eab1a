import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { runCli, withTempProject } from "../helpers/run_cli.ts";

async function acp(args: string[], env: Record<string, string> = {}) {
  return await withTempProject({}, async (dir) => {
    await Deno.mkdir(`${dir}/home`);
    return await runCli(["acp", ...args], { cwd: dir, home: `${dir}/home`, env, stdin: "" });
  });
}

Deno.test("acp --endpoint that is no http(s) URL exits 2 before the protocol, with the form it takes", async () => {
  for (
    const [value, said] of [
      ["localhost:11434", "--endpoint takes an http:// or https:// URL"],
      ["not a url", '--endpoint takes a URL such as http://localhost:11434/v1, got "not a url"'],
      ["ftp://models.example/v1", "--endpoint takes an http:// or https:// URL"],
      ["http://proxy.example/v1?key=sk-1", "without a ?query or #fragment"],
    ]
  ) {
    const result = await acp(["--endpoint", value!]);
    assertEquals(result.code, 2, result.stderr);
    assertEquals(result.stdout, "");
    assertStringIncludes(result.stderr, said!);
  }
});

Deno.test("acp --endpoint with a user and password in the URL is refused: the key goes in a variable", async () => {
  const result = await acp(["--endpoint", "https://me:sk-secret@models.example/v1"]);
  assertEquals(result.code, 2);
  assertStringIncludes(result.stderr, "must not carry a user or password");
  assertEquals(result.stderr.includes("sk-secret"), false);
});

Deno.test("acp --api-key-env naming an unset variable exits 2 and says to export it", async () => {
  const result = await acp(["--endpoint", "http://127.0.0.1:9/v1", "--api-key-env", "NO_SUCH_KEY"]);
  assertEquals(result.code, 2);
  assertStringIncludes(result.stderr, "--api-key-env names $NO_SUCH_KEY, which is not set");
});

Deno.test("acp --api-key-env takes a variable's name, not a key", async () => {
  const result = await acp(["--endpoint", "http://127.0.0.1:9/v1", "--api-key-env", "sk-123/abc"]);
  assertEquals(result.code, 2);
  assertStringIncludes(result.stderr, "--api-key-env takes a variable's name");
  // What was given may be the key itself: it is never repeated.
  assertEquals(result.stderr.includes("sk-123"), false);
});

Deno.test("acp --api-key-env without --endpoint is a mistake worth saying", async () => {
  const result = await acp(["--api-key-env", "KEY"], { KEY: "x" });
  assertEquals(result.code, 2);
  assertStringIncludes(result.stderr, "--api-key-env is for --endpoint");
});
