/**
 * Runs the real launcher (`bin/llama-agent`) as a user would, with a pinned environment, and
 * returns stdout, stderr and the exit code separately.
 */
import { fileURLToPath } from "node:url";
import { pinnedEnv } from "./pinned_env.ts";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");
export const LAUNCHER = `${REPO_ROOT}/bin/llama-agent`;

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliRunOptions {
  /** The launch directory (the only writable root besides HOME). */
  readonly cwd: string;
  /** HOME for the run; a hermetic temporary one in tests. */
  readonly home: string;
  readonly env?: Record<string, string>;
  readonly stdin?: string;
}

export async function runCli(args: readonly string[], options: CliRunOptions): Promise<CliRun> {
  const child = await spawnLauncher(args, options);
  return cliRunOf(await child.output());
}

/** Starts the launcher with a pinned environment; `options.stdin`, if any, is written and closed. */
export async function spawnLauncher(
  args: readonly string[],
  options: CliRunOptions,
): Promise<Deno.ChildProcess> {
  const child = new Deno.Command(LAUNCHER, {
    args: [...args],
    cwd: options.cwd,
    clearEnv: true,
    env: pinnedEnv(options.home, options.env),
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  return child;
}

/** The exit code and the output, decoded. */
export function cliRunOf(output: Deno.CommandOutput): CliRun {
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** A temporary project directory with the given files, removed after `fn`. */
export async function withTempProject<T>(
  files: Readonly<Record<string, string | { text: string; mode: number }>>,
  fn: (dir: string) => Promise<T>,
): Promise<T> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "llama-agent-test-" }));
  try {
    for (const [relative, content] of Object.entries(files)) {
      if (relative.startsWith("/") || relative.split("/").includes("..")) {
        throw new Error(`withTempProject: "${relative}" must stay inside the project`);
      }
      const path = `${dir}/${relative}`;
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      if (typeof content === "string") {
        await Deno.writeTextFile(path, content);
      } else {
        await Deno.writeTextFile(path, content.text);
        await Deno.chmod(path, content.mode);
      }
    }
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
