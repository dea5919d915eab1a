/**
 * Hook notices as acpx prints them (`--format text`, what a person reads): acpx joins every agent
 * message chunk whatever its `messageId`, so a notice is a paragraph of its own only if its text
 * says so. The scripted model keeps the run fast; the client is the real one.
 */
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { acpxAgentArgs, acpxCommand, findNode } from "../helpers/acpx.ts";
import { LAUNCHER, withTempProject } from "../helpers/run_cli.ts";

const ignore = findNode() === undefined; // acpx runs on Node; the README says to install it

Deno.test({
  name: "acpx prints a Stop hook's systemMessage as a paragraph of its own after the model's reply",
  ignore,
}, async () => {
  const settings = {
    hooks: {
      Stop: [{
        hooks: [{
          type: "command",
          command: `printf '%s' '{"systemMessage":"Reminder: run the tests"}'`,
        }],
      }],
    },
  };
  await withTempProject({
    "home/.keep": "",
    "acpx-home/.keep": "",
    "project/.claude/settings.json": JSON.stringify(settings),
    "project/script.json": JSON.stringify({ turns: [{ text: "Done." }] }),
  }, async (dir) => {
    const cwd = `${dir}/project`;
    const args = acpxAgentArgs({
      agentCommand: [LAUNCHER, "acp", "--model", "scripted:script.json"],
      cwd,
      home: `${dir}/home`,
    }, `${dir}/agent-stderr.log`);
    args[args.indexOf("--format") + 1] = "text";
    const output = await acpxCommand(findNode()!, [...args, "--approve-all", "exec", "--", "hi"], {
      cwd,
      acpxHome: `${dir}/acpx-home`,
    }).output();
    const stdout = new TextDecoder().decode(output.stdout);
    const stderr = new TextDecoder().decode(output.stderr);
    assertEquals(output.code, 0, `${stdout}\n${stderr}`);
    assertStringIncludes(stdout, "Done.\n\nStop says: Reminder: run the tests\n");
    for (const bad of ["Error handling notification", "Invalid params"]) {
      assertEquals(stderr.includes(bad), false, stderr);
    }
  });
});
