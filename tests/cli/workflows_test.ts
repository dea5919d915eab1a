/**
 * The GitHub workflows cannot run here; what they must agree with can be checked: CI runs the same
 * entry point as local CI, the release builds every compile target the way `deno task compile`
 * does, and the action installs through install.sh.
 */
import { COMPILE_TARGETS } from "../../tools/compile.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { REPO_ROOT } from "../helpers/run_cli.ts";

const read = (path: string) => Deno.readTextFile(`${REPO_ROOT}/${path}`);

Deno.test("ci.yml runs .ci/run, the script local CI runs", async () => {
  const ci = await read(".github/workflows/ci.yml");
  assertStringIncludes(ci, "run: .ci/run");
  assertStringIncludes(ci, "node-version: 20");
});

Deno.test("release.yml compiles every target, with its native files, and publishes SHA256SUMS and the scenario schema", async () => {
  const release = await read(".github/workflows/release.yml");
  const matrix = /target: \[([^\]]+)\]/.exec(release)?.[1]?.split(",").map((t) => t.trim());
  assertEquals(matrix, COMPILE_TARGETS.map((t) => t.name));
  assertStringIncludes(
    release,
    "deno task compile --target ${{ matrix.target }} --fetch-native",
  );
  assertStringIncludes(
    release,
    "sha256sum llama-agent-* install.sh hooks-test.schema.json > SHA256SUMS",
  );
  // The published schema is the binary's own, and the same as the committed one.
  assertStringIncludes(release, "hooks schema > dist/hooks-test.schema.json");
  assertStringIncludes(release, "cmp dist/hooks-test.schema.json schemas/hooks-test.schema.json");
  assertStringIncludes(release, 'tags: ["v*"]');
  assertStringIncludes(release, "dist/llama-agent-linux-x64 --version");
});

Deno.test("the hooks test action installs with install.sh and runs hooks test", async () => {
  const action = await read("action.yml");
  assertStringIncludes(action, "INSTALLER: ${{ github.action_path }}/install.sh");
  assertStringIncludes(action, 'sh "$INSTALLER" --dir "$RUNNER_TEMP/llama-agent" "$@"');
  assertStringIncludes(action, "SHARD: ${{ inputs.shard }}");
  assert((await Deno.stat(`${REPO_ROOT}/install.sh`)).mode! & 0o100, "install.sh is executable");
});

Deno.test("the action's hooks test step passes --shard only when the shard input is set", async () => {
  const action = await read("action.yml");
  const line = /run: (llama-agent hooks test .*)$/m.exec(action)?.[1];
  assert(line !== undefined, "the hooks test step");
  const dir = await Deno.makeTempDir();
  try {
    // A stand-in llama-agent that prints the arguments it got, one per line.
    await Deno.writeTextFile(`${dir}/llama-agent`, '#!/bin/sh\nprintf "%s\\n" "$@"\n', {
      mode: 0o755,
    });
    const run = async (env: Record<string, string>) => {
      const output = await new Deno.Command("/bin/sh", {
        args: ["-c", line],
        env: { PATH: `${dir}:/usr/bin:/bin`, ...env },
        clearEnv: true,
      }).output();
      return new TextDecoder().decode(output.stdout).trim().split("\n");
    };
    assertEquals(await run({ ARGS: "--reporter github", SHARD: "" }), [
      "hooks",
      "test",
      "--reporter",
      "github",
    ]);
    assertEquals(await run({ ARGS: "--reporter github", SHARD: "2/4" }), [
      "hooks",
      "test",
      "--shard",
      "2/4",
      "--reporter",
      "github",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
