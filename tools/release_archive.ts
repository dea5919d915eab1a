/**
 * Packs a compiled binary into its release archive (`deno run --allow-read --allow-write
 * --allow-run tools/release_archive.ts --target NAME [--dir dist]`): `dist/llama-agent-<target>`
 * becomes `dist/llama-agent-<target>.tar.gz` holding an executable `llama-agent`, or, for Windows,
 * `dist/llama-agent-windows-x64.zip` holding `llama-agent.exe`. The archives are what the ACP
 * Registry entry (tools/registry_entry.ts) points at and what the release smoke test unpacks and
 * runs; the bare binaries stay for install.sh.
 *
 * Uses `tar` and `zip` (both on GitHub's Ubuntu runners, where the release packs).
 */
import { join, resolve } from "node:path";
import {
  archivedBinaryName,
  archiveName,
  assetName,
  COMPILE_TARGETS,
  type CompileTarget,
} from "./compile.ts";

/** The program and arguments that pack `staging`'s one file, `name`, into `output`. */
export function archiveCommand(
  target: CompileTarget,
  staging: string,
  output: string,
): { program: string; args: string[] } {
  const name = archivedBinaryName(target);
  return archiveName(target).endsWith(".zip")
    // -j: the file alone, without the staging path; -X: no owner or time extras.
    ? { program: "zip", args: ["-q", "-j", "-X", output, join(staging, name)] }
    : { program: "tar", args: ["-czf", output, "-C", staging, name] };
}

/** Packs `dir`'s binary for `target` into `dir`'s archive; returns the archive's path. */
export async function packReleaseArchive(target: CompileTarget, dir: string): Promise<string> {
  const binary = join(dir, assetName(target));
  const output = resolve(dir, archiveName(target));
  const staging = await Deno.makeTempDir({ prefix: "llama_agent_archive_" });
  try {
    const staged = join(staging, archivedBinaryName(target));
    await Deno.copyFile(binary, staged);
    await Deno.chmod(staged, 0o755);
    await Deno.remove(output).catch(() => {});
    const { program, args } = archiveCommand(target, staging, output);
    const result = await new Deno.Command(program, { args, stdout: "inherit", stderr: "piped" })
      .output();
    if (result.code !== 0) {
      throw new Error(
        `Cannot pack "${binary}" into "${output}": ${program} exited with code ${result.code}: ${
          new TextDecoder().decode(result.stderr).trim()
        }`,
      );
    }
    return output;
  } finally {
    await Deno.remove(staging, { recursive: true });
  }
}

if (import.meta.main) {
  const args = Deno.args;
  const targetName = args[args.indexOf("--target") + 1];
  const dir = args.includes("--dir") ? args[args.indexOf("--dir") + 1] : "dist";
  const target = COMPILE_TARGETS.find((t) => t.name === targetName);
  if (!args.includes("--target") || target === undefined || dir === undefined) {
    console.error(
      `release_archive: ${
        target === undefined && targetName !== undefined
          ? `unknown target "${targetName}"`
          : "expected --target NAME"
      }\nusage: deno run --allow-read --allow-write --allow-run tools/release_archive.ts ` +
        `--target ${COMPILE_TARGETS.map((t) => t.name).join("|")} [--dir DIR]`,
    );
    Deno.exit(2);
  }
  try {
    console.log(await packReleaseArchive(target, dir));
  } catch (error) {
    console.error(`release_archive: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(1);
  }
}
