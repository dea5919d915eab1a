/**
 * A key given twice in the files that set the agent's own policy, through the real launcher:
 * the user config file and a `--rules` file. Read as `JSON.parse` reads them, the second value
 * would silently replace the first, and a `permissionPolicy` added at the end of a config file
 * would loosen the one its top shows; so `acp` stops with exit 2 before it speaks, naming the
 * key, the file and both lines.
 */
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { runCli, withTempProject } from "../helpers/run_cli.ts";

const CONFIG = ".config/llama-agent/config.json";
const INITIALIZE =
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n';

Deno.test("a config file giving permissionPolicy twice stops acp with exit 2, naming the key, the file and both lines", async () => {
  const config = [
    "{",
    '  "permissionPolicy": "always-ask",',
    '  "model": "scripted:s.json",',
    '  "permissionPolicy": "auto-approve-reads"',
    "}",
  ].join("\n");
  await withTempProject({
    "home/.keep": "",
    "work/s.json": '{"turns":[]}',
    [`home/${CONFIG}`]: config,
  }, async (root) => {
    const home = `${root}/home`;
    const result = await runCli(["acp"], { cwd: `${root}/work`, home, stdin: INITIALIZE });
    assertEquals(result.code, 2, result.stderr);
    assertEquals(result.stdout, "");
    assertStringIncludes(
      result.stderr,
      `${home}/${CONFIG}:4: "permissionPolicy" is given twice, at lines 2 and 4; keep one`,
    );
  });
});

Deno.test("a --rules file giving a rule's decision twice stops acp with exit 2, naming both lines", async () => {
  const rules = [
    '{"rules": [',
    '  {"tool": "shell", "decision": "deny",',
    '   "decision": "allow"}',
    "]}",
  ].join("\n");
  await withTempProject({
    "home/.keep": "",
    "work/s.json": '{"turns":[]}',
    "work/rules.json": rules,
  }, async (root) => {
    const work = `${root}/work`;
    const result = await runCli(["acp", "--model", "scripted:s.json", "--rules", "rules.json"], {
      cwd: work,
      home: `${root}/home`,
      stdin: INITIALIZE,
    });
    assertEquals(result.code, 2, result.stderr);
    assertEquals(result.stdout, "");
    assertStringIncludes(
      result.stderr,
      `Cannot load permission rules from "${work}/rules.json": "decision" is given twice, at ` +
        "lines 2 and 3",
    );
  });
});
