/**
 * The GitHub workflows cannot run here; what they must agree with can be checked: CI runs the same
 * entry point as local CI, the release builds every compile target the way `deno task compile`
 * does, and the action installs through install.sh.
 */
import { archivedBinaryName, archiveName, COMPILE_TARGETS } from "../../tools/compile.ts";
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
    "sha256sum llama-agent-* install.sh hooks-test.schema.json agent.json > SHA256SUMS",
  );
  // The published schema is the binary's own, and the same as the committed one.
  assertStringIncludes(release, "hooks schema > dist/hooks-test.schema.json");
  assertStringIncludes(release, "cmp dist/hooks-test.schema.json schemas/hooks-test.schema.json");
  assertStringIncludes(release, 'tags: ["v*"]');
  assertStringIncludes(release, "dist/llama-agent-linux-x64 --version");
  assert(!release.includes("\t"), "no tab in the YAML");
});

/** The text of one job of a workflow: from its key to the next job's. */
function job(workflow: string, name: string): string {
  const start = workflow.indexOf(`\n  ${name}:\n`);
  assert(start >= 0, `the job "${name}"`);
  const next = workflow.slice(start + 1).search(/\n {2}[a-z-]+:\n/);
  return next < 0 ? workflow.slice(start) : workflow.slice(start, start + 1 + next);
}

/** The entries of a job's `matrix.include`, written as flow mappings (`{ key: value, ... }`). */
function matrixIncludes(jobText: string): Record<string, string>[] {
  const include = jobText.slice(jobText.indexOf("include:"), jobText.indexOf("runs-on:"));
  return [...include.matchAll(/\{([^}]*)\}/g)].map((m) =>
    Object.fromEntries(
      m[1]!.split(",").map((pair) => pair.trim()).filter((pair) => pair !== "").map((pair) => {
        const colon = pair.indexOf(":");
        return [pair.slice(0, colon).trim(), pair.slice(colon + 1).trim()];
      }),
    )
  );
}

Deno.test("release.yml packs every target's archive, the one the registry entry names", async () => {
  const compile = job(await read(".github/workflows/release.yml"), "compile");
  assertStringIncludes(compile, "tools/release_archive.ts --target ${{ matrix.target }}");
  assert(
    compile.indexOf("tools/release_archive.ts") < compile.indexOf("upload-artifact"),
    "packed before the upload",
  );
});

Deno.test("release.yml unpacks and smoke-tests every target's archive on a runner of its own OS and CPU, acp prompt included", async () => {
  const smoke = job(await read(".github/workflows/release.yml"), "smoke");
  // GitHub's runner labels: ubuntu-24.04-arm and macos-latest are arm64, macos-15-intel is x64.
  const runners: Record<string, string> = {
    "linux-x64": "ubuntu-latest",
    "linux-arm64": "ubuntu-24.04-arm",
    "darwin-x64": "macos-15-intel",
    "darwin-arm64": "macos-latest",
    "windows-x64": "windows-latest",
  };
  assertEquals(
    matrixIncludes(smoke),
    COMPILE_TARGETS.map((target) => ({
      target: target.name,
      runner: runners[target.name]!,
      binary: archivedBinaryName(target),
      // Hooks run through /bin/sh, which Windows lacks.
      ...(target.name.startsWith("windows") ? { flags: "--skip-hooks-test" } : {}),
    })),
  );
  assertStringIncludes(smoke, "runs-on: ${{ matrix.runner }}");
  assertStringIncludes(smoke, "fail-fast: false");
  assertStringIncludes(smoke, "name: llama-agent-${{ matrix.target }}");
  // The archives as compile.ts names them: .tar.gz, and .zip for the one Windows target.
  const unix = COMPILE_TARGETS.find((t) => t.name === "linux-x64")!;
  const windows = COMPILE_TARGETS.find((t) => t.name === "windows-x64")!;
  assertEquals(archiveName(unix), "llama-agent-linux-x64.tar.gz");
  assertStringIncludes(smoke, "tar -xzf dist/llama-agent-${{ matrix.target }}.tar.gz -C smoke");
  assertStringIncludes(smoke, `Expand-Archive -Path dist/${archiveName(windows)}`);
  assertStringIncludes(
    smoke.replace(/\s+/g, " "),
    "deno run --allow-all tools/smoke_agent.ts ${{ matrix.flags }} smoke/${{ matrix.binary }}",
  );
});

Deno.test("release.yml publishes only after every smoke test, with agent.json written from the archives", async () => {
  const release = await read(".github/workflows/release.yml");
  const publish = job(release, "publish");
  assertStringIncludes(publish, "needs: [compile, smoke]");
  assertStringIncludes(
    publish.replace(/\s+/g, " "),
    'tools/registry_entry.ts --tag "$GITHUB_REF_NAME" --repository "$GITHUB_REPOSITORY" --dir artifacts',
  );
  assert(
    publish.indexOf("registry_entry.ts") < publish.indexOf("sha256sum"),
    "agent.json is written before the checksums",
  );
});

Deno.test("the release's Deno is the version package.json pins", async () => {
  const release = await read(".github/workflows/release.yml");
  const pinned = JSON.parse(await read("package.json")).devDependencies.deno;
  const versions = [...release.matchAll(/deno-version: (\S+)/g)].map((m) => m[1]);
  assertEquals(versions, [pinned, pinned]);
});

Deno.test("the hooks test action installs with install.sh and runs hooks test", async () => {
  const action = await read("action.yml");
  assertStringIncludes(action, "INSTALLER: ${{ github.action_path }}/install.sh");
  assertStringIncludes(action, 'sh "$INSTALLER" --dir "$RUNNER_TEMP/llama-agent" "$@"');
  assertStringIncludes(action, "SHARD: ${{ inputs.shard }}");
  assert((await Deno.stat(`${REPO_ROOT}/install.sh`)).mode! & 0o100, "install.sh is executable");
});

Deno.test("the action's lint step adds --strict only when the lint input is strict", async () => {
  const action = await read("action.yml");
  const line = /run: (llama-agent hooks lint .*)$/m.exec(action)?.[1];
  assert(line !== undefined, "the hooks lint step");
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/llama-agent`, '#!/bin/sh\nprintf "%s\\n" "$@"\n', {
      mode: 0o755,
    });
    const run = async (lint: string) => {
      const output = await new Deno.Command("/bin/sh", {
        args: ["-c", line],
        env: { PATH: `${dir}:/usr/bin:/bin`, LINT: lint },
        clearEnv: true,
      }).output();
      return new TextDecoder().decode(output.stdout).trim().split("\n");
    };
    assertEquals(await run("true"), ["hooks", "lint", "--format", "github"]);
    assertEquals(await run("strict"), ["hooks", "lint", "--format", "github", "--strict"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  assertStringIncludes(action, "if: inputs.lint == 'true' || inputs.lint == 'strict'");
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
