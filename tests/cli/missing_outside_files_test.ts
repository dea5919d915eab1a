/**
 * A file or directory named on the command line outside what llama-agent may read: one that is
 * not there is said to be missing, with its path and what to do, as it is inside; only one that
 * is there gets the advice to move it or start elsewhere.
 */
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { runCli, withTempProject } from "../helpers/run_cli.ts";
import { outsidePathStatus } from "../../src/cli/outside_path_status.ts";

/** A project (the launch directory), a HOME, and a directory outside both. */
function withPlaces(
  fn: (places: { project: string; home: string; outside: string }) => Promise<void>,
): Promise<void> {
  return withTempProject(
    { "project/.keep": "", "home/.keep": "", "outside/.keep": "" },
    (root) => fn({ project: `${root}/project`, home: `${root}/home`, outside: `${root}/outside` }),
  );
}

Deno.test("acp --model, --model scripted: and --rules missing outside what llama-agent may read: no such file, the path and what to do", async () => {
  await withPlaces(async ({ project, home, outside }) => {
    const cases: [string[], string][] = [
      [
        ["--model", `${outside}/model.gguf`],
        `Cannot load model "${outside}/model.gguf" (--model): no such file; check the path, ` +
        "or name a Hugging Face model as hf:OWNER/REPO[:FILE]\n",
      ],
      [
        ["--model", `${outside}/no/such/dir/model.gguf`],
        `Cannot load model "${outside}/no/such/dir/model.gguf" (--model): no such file; check ` +
        "the path, or name a Hugging Face model as hf:OWNER/REPO[:FILE]\n",
      ],
      [
        ["--model", `scripted:${outside}/script.json`],
        `Cannot read model script "${outside}/script.json" (--model): no such file; check the ` +
        "path\n",
      ],
      [
        ["--model", "scripted:script.json", "--rules", `${outside}/rules.json`],
        `Cannot load permission rules from "${outside}/rules.json" (--rules): no such file; ` +
        "check the path\n",
      ],
    ];
    await Deno.writeTextFile(`${project}/script.json`, '{"turns":[]}');
    for (const [args, message] of cases) {
      const result = await runCli(["acp", ...args], { cwd: project, home, stdin: "" });
      assertEquals([result.code, result.stdout, result.stderr], [2, "", message], args.join(" "));
    }
  });
});

Deno.test("acp --model missing inside the project says what to do too", async () => {
  await withPlaces(async ({ project, home }) => {
    const result = await runCli(["acp", "--model", "missing.gguf"], {
      cwd: project,
      home,
      stdin: "",
    });
    assertEquals(result.code, 2);
    assertEquals(
      result.stderr,
      `Cannot load model "${project}/missing.gguf" (--model): no such file; check the path, or ` +
        "name a Hugging Face model as hf:OWNER/REPO[:FILE]\n",
    );
  });
});

Deno.test("hooks --cwd and --plugin-dir missing outside what llama-agent may read: no such directory", async () => {
  await withPlaces(async ({ project, home, outside }) => {
    const cwd = await runCli(["hooks", "list", "--cwd", `${outside}/gone`], { cwd: project, home });
    assertEquals([cwd.code, cwd.stderr], [2, `Directory "${outside}/gone" does not exist\n`]);
    const plugin = await runCli(
      ["hooks", "list", "--compat", "claude", "--plugin-dir", `${outside}/gone`],
      { cwd: project, home },
    );
    assertEquals(plugin.code, 2);
    assertStringIncludes(
      plugin.stderr,
      `Cannot load --plugin-dir "${outside}/gone": no such directory`,
    );
  });
});

Deno.test("a directory that is there outside what llama-agent may read still gets the advice to start elsewhere", async () => {
  await withPlaces(async ({ project, home, outside }) => {
    const cwd = await runCli(["hooks", "list", "--cwd", outside], { cwd: project, home });
    assertEquals(cwd.code, 2);
    assertStringIncludes(cwd.stderr, "llama-agent may only use files under");
  });
});

Deno.test("outsidePathStatus: present, missing (a dangling link, a missing directory on the way too), and unknown when the shell cannot tell", async () => {
  await withPlaces(async ({ outside }) => {
    await Deno.writeTextFile(`${outside}/file`, "");
    await Deno.symlink(`${outside}/nowhere`, `${outside}/dangling`);
    assertEquals(await outsidePathStatus(`${outside}/file`), "present");
    assertEquals(await outsidePathStatus(`${outside}/dangling`), "missing");
    assertEquals(await outsidePathStatus(`${outside}/missing`), "missing");
    assertEquals(await outsidePathStatus(`${outside}/a/b/c`), "missing");
    // What lies where a directory should be is no directory: nothing can be under it.
    assertEquals(await outsidePathStatus(`${outside}/file/x`), "missing");
    const failed = await outsidePathStatus(
      `${outside}/missing`,
      () => Promise.resolve({ kind: "spawn_failed", message: "no /bin/sh", durationMs: 0 }),
    );
    assertEquals(failed, "unknown");
  });
});
