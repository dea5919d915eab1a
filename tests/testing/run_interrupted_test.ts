/**
 * A run that is interrupted (Ctrl-C: the CLI aborts the run's signal): no case starts after it,
 * the running ones end at once as errors that say so, their hooks killed and their copies of
 * the project removed, so an interrupted run leaves nothing behind.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { livingPidsMatching } from "../hooks/process_probe.ts";
import { runScenarios } from "../../src/testing/runner/run_scenarios.ts";
import { command, hooksSettings, treeOf, withTempProject } from "./scenario_project.ts";

/** Resolves once `path` exists; the hook under test writes it when it starts. */
async function whenExists(path: string): Promise<void> {
  while (true) {
    try {
      await Deno.lstat(path);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

for (const kind of ["event", "session"] as const) {
  Deno.test(`an interrupted run ends its running ${kind} case at once, starts no other and leaves nothing behind`, async () => {
    // Unique, so the check for survivors finds only this test's processes.
    const seconds = `37.${Math.floor(Math.random() * 1e6)}`;
    const slow = command(`cat > /dev/null; touch "$STARTED"; sleep ${seconds}`);
    const event = kind === "event" ? "PreToolUse" : "UserPromptSubmit";
    await withTempProject({
      ".claude/settings.json": hooksSettings({ [event]: [{ hooks: [slow] }] }),
    }, async (project) => {
      const started = `${project.realHome}/started`;
      const one = (name: string) =>
        kind === "event" ? { name, event, input: { tool_name: "shell" }, expect: { errors: 0 } } : {
          name,
          session: { model: { turns: [{ text: "hi" }] }, prompts: ["hi"] },
          expect: { stopReason: "end_turn" },
        };
      const file = `${project.dir}/.claude/hooks-tests/slow.test.jsonc`;
      await Deno.mkdir(`${project.dir}/.claude/hooks-tests`);
      await Deno.writeTextFile(
        file,
        JSON.stringify({ env: { STARTED: started }, cases: [one("first"), one("second")] }),
      );
      const interrupt = new AbortController();
      void whenExists(started).then(() => interrupt.abort());
      const begun = performance.now();
      const run = await runScenarios({
        projectDir: project.dir,
        files: [file],
        concurrency: 1,
        env: project.outerEnv,
        signal: interrupt.signal,
      }, { killGraceMs: 100 });
      // Far less than the hook's sleep: the case did not wait for it.
      assert(performance.now() - begun < 20_000, "the run did not end when interrupted");
      assertEquals(run.results.map((r) => [r.name, r.status, r.error]), [
        ["first", "error", "Interrupted: the run was stopped before this case finished"],
      ]);
      assertEquals(await livingPidsMatching(`sleep ${seconds}`), []);
      const scratch = project.outerEnv("XDG_CACHE_HOME")!;
      assertEquals(await treeOf(`${scratch}/llama-agent/hooks-test`), []);
    });
  });
}
