/**
 * Writes the release's ACP Registry entry, `agent.json` (`deno run --allow-read --allow-write
 * tools/registry_entry.ts --tag vX.Y.Z --repository OWNER/NAME [--dir artifacts] [--output FILE]`):
 * the manifest the registry (github.com/agentclientprotocol/registry, one `<id>/agent.json` per
 * agent) lists, with one `distribution.binary` platform per compile target, each pointing at the
 * release's archive of that target (tools/release_archive.ts) with its SHA-256, and starting
 * `llama-agent acp`. Every target's archive must be in `--dir`: an entry that silently lacks a
 * platform is not written; and the tag must be package.json's version, the one the binary reports.
 *
 * The shape follows the registry's `agent.schema.json`: `id` (`^[a-z][a-z0-9-]*$`), `name`,
 * `version` (semver), `description`, `distribution` required; `binary` keyed by platform, each
 * with `archive` and `cmd` required, `sha256` (64 hex digits) and `args` optional; no other keys.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  archivedBinaryName,
  archiveName,
  COMPILE_TARGETS,
  type CompileTarget,
  type RegistryPlatform,
} from "./compile.ts";

export interface BinaryTarget {
  readonly archive: string;
  readonly sha256: string;
  readonly cmd: string;
  readonly args: readonly string[];
}

export interface RegistryEntry {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly repository: string;
  readonly license: string;
  readonly distribution: {
    readonly binary: Partial<Record<RegistryPlatform, BinaryTarget>>;
  };
}

export interface RegistryEntryInput {
  /** The release's tag: `v1.2.3` or `v1.2.3-rc.1`. */
  readonly tag: string;
  /** The GitHub repository the release belongs to: `owner/name`. */
  readonly repository: string;
  /** package.json's `version`, `description` and `license`. */
  readonly packageVersion: string;
  readonly description: string;
  readonly license: string;
  /** Each target's archive SHA-256 (hex), by target name; every target must have one. */
  readonly checksums: ReadonlyMap<string, string>;
}

const TAG = /^v(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$/;
const REPOSITORY = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const SHA256 = /^[0-9a-f]{64}$/;

/** The entry for a release; a tag, repository or checksum that cannot make one is an Error. */
export function registryEntry(input: RegistryEntryInput): RegistryEntry {
  const version = TAG.exec(input.tag)?.[1];
  if (version === undefined) {
    throw new Error(
      `Cannot write the ACP Registry entry: the tag "${input.tag}" is not a version ` +
        `(vMAJOR.MINOR.PATCH, e.g. "v1.2.3")`,
    );
  }
  // The binary says package.json's version (`--version`); the entry must not say another.
  if (version !== input.packageVersion) {
    throw new Error(
      `Cannot write the ACP Registry entry: the tag "${input.tag}" is not package.json's ` +
        `version "${input.packageVersion}": bump the version in package.json before tagging`,
    );
  }
  if (!REPOSITORY.test(input.repository)) {
    throw new Error(
      `Cannot write the ACP Registry entry: the repository "${input.repository}" is not ` +
        `"OWNER/NAME"`,
    );
  }
  const missing = COMPILE_TARGETS.filter((t) => !input.checksums.has(t.name));
  if (missing.length > 0) {
    throw new Error(
      `Cannot write the ACP Registry entry: no archive for ${
        missing.map((t) => `"${archiveName(t)}"`).join(", ")
      }`,
    );
  }
  const binary: Partial<Record<RegistryPlatform, BinaryTarget>> = {};
  for (const target of COMPILE_TARGETS) {
    const sha256 = input.checksums.get(target.name)!;
    if (!SHA256.test(sha256)) {
      throw new Error(
        `Cannot write the ACP Registry entry: the checksum of "${
          archiveName(target)
        }" is not 64 lowercase hex digits: "${sha256}"`,
      );
    }
    binary[target.registryPlatform] = {
      archive: `https://github.com/${input.repository}/releases/download/${input.tag}/${
        archiveName(target)
      }`,
      sha256,
      cmd: commandOf(target),
      args: ["acp"],
    };
  }
  return {
    id: "llama-agent",
    name: "llama-agent",
    version,
    description: input.description,
    repository: `https://github.com/${input.repository}`,
    license: input.license,
    distribution: { binary },
  };
}

/** How the registry's client starts the unpacked binary (as its examples write it). */
function commandOf(target: CompileTarget): string {
  const name = archivedBinaryName(target);
  return name.endsWith(".exe") ? name : `./${name}`;
}

/** The SHA-256 of a file, hex, read in chunks (the archives are tens of MB). */
export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  using file = await Deno.open(path);
  for await (const chunk of file.readable) hash.update(chunk);
  return hash.digest("hex");
}

/** Each target's archive checksum, from `dir`; archives that are not there are left out. */
export async function archiveChecksums(dir: string): Promise<Map<string, string>> {
  const checksums = new Map<string, string>();
  for (const target of COMPILE_TARGETS) {
    const path = join(dir, archiveName(target));
    const exists = await Deno.stat(path).then((info) => info.isFile, () => false);
    if (exists) checksums.set(target.name, await sha256OfFile(path));
  }
  return checksums;
}

function flagValue(args: readonly string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

async function main(args: readonly string[]): Promise<number> {
  const tag = flagValue(args, "--tag");
  const repository = flagValue(args, "--repository");
  const dir = flagValue(args, "--dir") ?? "artifacts";
  const output = flagValue(args, "--output") ?? join(dir, "agent.json");
  if (tag === undefined || repository === undefined) {
    console.error(
      "registry_entry: expected --tag and --repository\nusage: deno run --allow-read " +
        "--allow-write tools/registry_entry.ts --tag vX.Y.Z --repository OWNER/NAME " +
        "[--dir artifacts] [--output FILE]",
    );
    return 2;
  }
  const packageJson = JSON.parse(
    await Deno.readTextFile(fileURLToPath(new URL("../package.json", import.meta.url))),
  );
  try {
    const entry = registryEntry({
      tag,
      repository,
      packageVersion: packageJson.version,
      description: packageJson.description,
      license: packageJson.license,
      checksums: await archiveChecksums(dir),
    });
    await Deno.writeTextFile(output, `${JSON.stringify(entry, null, 2)}\n`);
    console.log(`${output}: ${Object.keys(entry.distribution.binary).join(", ")}`);
    return 0;
  } catch (error) {
    console.error(`registry_entry: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
