/**
 * Scripts run in a Deno of their own, for what a test cannot show from inside its own process:
 * what the code does under narrower runtime permissions than the test runner's `--allow-all`.
 */
import { assertEquals } from "../helpers/assert.ts";

/** The URL of a file of this repository (`src/...`, `tests/...`), for a script's imports. */
export function repoUrl(path: string): string {
  return new URL(`../../${path}`, import.meta.url).href;
}

/**
 * Writes `script` to `dir/probe.ts`, runs it with exactly `permissions` (plus reading this
 * repository), and returns what it printed as JSON. A failed run fails the test with its stderr.
 */
export async function runProbeScript(
  dir: string,
  script: string,
  permissions: { readonly read: readonly string[]; readonly write: readonly string[]; ffi?: true },
): Promise<unknown> {
  await Deno.writeTextFile(`${dir}/probe.ts`, script);
  const repo = new URL("../..", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      "--no-config",
      ...(permissions.ffi ? ["--allow-ffi"] : []),
      `--allow-read=${[...permissions.read, repo].join(",")}`,
      `--allow-write=${permissions.write.join(",")}`,
      `${dir}/probe.ts`,
    ],
    stdin: "null",
    clearEnv: true,
    env: { NO_COLOR: "1", DENO_DIR: Deno.env.get("DENO_DIR") ?? `${dir}/deno_dir` },
  }).output();
  assertEquals(output.code, 0, new TextDecoder().decode(output.stderr));
  return JSON.parse(new TextDecoder().decode(output.stdout));
}
