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

Deno.test("acp --api-key-env naming a key with a line break exits 2 naming the variable, never the key", async () => {
  const key = "sk-pasted-0123456789";
  for (
    const [value, said] of [
      [`${key}\n`, "holds a line break at its end (was it pasted with its newline?)"],
      [`${key}\r\nsk-second-line`, "holds a line break at character 21"],
      [`${key}\x07`, "holds a control character at its end"],
    ]
  ) {
    const result = await acp(
      ["--endpoint", "http://127.0.0.1:9/v1", "--api-key-env", "MY_KEY"],
      { MY_KEY: value! },
    );
    assertEquals(result.code, 2, result.stderr);
    assertEquals(result.stdout, "");
    assertStringIncludes(result.stderr, `--api-key-env names $MY_KEY, whose value ${said}`);
    assertEquals(result.stderr.includes("sk-"), false, result.stderr);
  }
});

Deno.test("acp with an OPENAI_CUSTOM_HEADERS value a header cannot carry exits 2, never showing it", async () => {
  const result = await acp(["--endpoint", "http://127.0.0.1:9/v1"], {
    OPENAI_CUSTOM_HEADERS: "api-key: secret-value\r-0123456789\nx-other: fine",
  });
  assertEquals(result.code, 2, result.stderr);
  assertStringIncludes(
    result.stderr,
    'OPENAI_CUSTOM_HEADERS: the value of header "api-key" holds a line break at character 13',
  );
  assertEquals(result.stderr.includes("secret-value"), false, result.stderr);
});
