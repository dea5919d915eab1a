import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { runCli, withTempProject } from "../helpers/run_cli.ts";

/** A project (the launch directory), a HOME, and a directory outside both. */
function withPlaces(
  fn: (places: { project: string; home: string; outside: string }) => Promise<void>,
): Promise<void> {
  return withTempProject(
    { "project/.keep": "", "home/.keep": "", "outside/.keep": "" },
    (root) => fn({ project: `${root}/project`, home: `${root}/home`, outside: `${root}/outside` }),
  );
}

Deno.test("acp --model and --rules outside what llama-agent may read: exit 2 at start, naming the file, the readable places and what to do", async () => {
  await withPlaces(async ({ project, home, outside }) => {
    await Deno.writeTextFile(`${outside}/model.gguf`, "GGUF");
    await Deno.writeTextFile(`${outside}/script.json`, '{"turns":[]}');
    await Deno.writeTextFile(`${outside}/rules.json`, '{"rules":[]}');
    const cases: [string[], string][] = [
      [["--model", `${outside}/model.gguf`], `Cannot load model "${outside}/model.gguf" (--model)`],
      [
        ["--model", `scripted:${outside}/script.json`],
        `Cannot read model script "${outside}/script.json" (--model)`,
      ],
      [
        ["--rules", `${outside}/rules.json`],
        `Cannot load permission rules from "${outside}/rules.json" (--rules)`,
      ],
    ];
    for (const [args, said] of cases) {
      const result = await runCli(["acp", ...args], { cwd: project, home, stdin: "" });
      assertEquals(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
      assertEquals(result.stdout, "");
      assertEquals(
        result.stderr,
        `${said}: llama-agent may only read files under "${project}" (where it was started) ` +
          `and your home directory "${home}"; move the file under one of them, or start ` +
          "llama-agent from a directory that contains it\n",
      );
    }
  });
});

Deno.test("acp --model PATH that is missing, a directory or no GGUF file: exit 2 before the protocol starts", async () => {
  await withPlaces(async ({ project, home }) => {
    await Deno.writeTextFile(`${project}/notes.gguf`, "just text");
    await Deno.mkdir(`${home}/models`);
    const cases: [string, string][] = [
      ["missing.gguf", `Cannot load model "${project}/missing.gguf" (--model): no such file`],
      [
        `${home}/models`,
        `Cannot load model "${home}/models" (--model): it is a directory, not a regular file`,
      ],
      ["notes.gguf", `Cannot load model "${project}/notes.gguf": not a GGUF file`],
    ];
    for (const [model, message] of cases) {
      // Nothing on stdin is read: the agent never answers `initialize`.
      const result = await runCli(["acp", "--model", model], {
        cwd: project,
        home,
        stdin: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n',
      });
      assertEquals(result.code, 2, `${model}: ${result.stderr}`);
      assertEquals(result.stdout, "");
      assertStringIncludes(result.stderr, message);
    }
  });
});
