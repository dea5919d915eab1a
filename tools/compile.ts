/**
 * Builds the single-file `llama-agent` binary for one target, or prints the command line
 * (`deno task compile [--target NAME|--all] [--dry-run] [--fetch-native]`; the host's target by
 * default).
 *
 * The binary gets the permission set of `bin/llama-agent`, baked in, with one difference forced by
 * `deno compile`: permission paths are fixed strings, read when the binary starts. A relative
 * path works (`.` is the launch directory, resolved at start), but the user's `$HOME` is unknown
 * at compile time and a process cannot narrow its own grant later. So the binary may read and
 * write the launch directory and the directory that holds users' homes on its OS (`/home` and
 * `/root` on Linux, `/Users` on macOS, `C:\Users` on Windows): the operating system's own file
 * permissions keep it out of other users' homes, and the agent's tools are confined in code to
 * the launch directory and `$HOME` exactly, as under `bin/llama-agent`. A `$HOME` outside those
 * directories is refused at start with a message saying what to do.
 *
 * `deno compile` downloads the Deno runtime for the target (denort) from the Deno release server;
 * with `DENORT_BIN` set to a Deno binary it builds offline, a binary that cannot run as
 * llama-agent but whose embedded files are the real ones (the tests build the host's so).
 *
 * node-llama-cpp's native files for the target come from its platform package, which must be in
 * node_modules: `npm install` brings only the host's; `--fetch-native` adds a missing one with
 * `npm install --no-save --force <package>@<node-llama-cpp's version>` (the release workflow).
 */
import { fileURLToPath } from "node:url";

export interface CompileTarget {
  /** Our name for it, used in release asset names. */
  readonly name: string;
  /** `deno compile --target`. */
  readonly denoTarget: string;
  /** node-llama-cpp's prebuilt binaries for the target. */
  readonly llamaPackage: string;
  /** The ACP Registry's name for the platform (`agent.json`'s `distribution.binary` keys). */
  readonly registryPlatform: RegistryPlatform;
  /** Where users' home directories live: the baked read/write grant beside the launch directory. */
  readonly homeBases: readonly string[];
  /** Read-only: the system library directories node-llama-cpp inspects (glibc detection). */
  readonly systemLibraryDirs: readonly string[];
}

/** The platforms the ACP Registry's agent schema names. */
export type RegistryPlatform =
  | "darwin-aarch64"
  | "darwin-x86_64"
  | "linux-aarch64"
  | "linux-x86_64"
  | "windows-aarch64"
  | "windows-x86_64";

const LINUX_LIBRARY_DIRS = ["/lib", "/lib64", "/usr/lib", "/usr/lib64"];

export const COMPILE_TARGETS: readonly CompileTarget[] = [
  {
    name: "linux-x64",
    denoTarget: "x86_64-unknown-linux-gnu",
    llamaPackage: "@node-llama-cpp/linux-x64",
    registryPlatform: "linux-x86_64",
    homeBases: ["/home", "/root"],
    systemLibraryDirs: LINUX_LIBRARY_DIRS,
  },
  {
    name: "linux-arm64",
    denoTarget: "aarch64-unknown-linux-gnu",
    llamaPackage: "@node-llama-cpp/linux-arm64",
    registryPlatform: "linux-aarch64",
    homeBases: ["/home", "/root"],
    systemLibraryDirs: LINUX_LIBRARY_DIRS,
  },
  {
    name: "darwin-x64",
    denoTarget: "x86_64-apple-darwin",
    llamaPackage: "@node-llama-cpp/mac-x64",
    registryPlatform: "darwin-x86_64",
    homeBases: ["/Users"],
    systemLibraryDirs: [],
  },
  {
    name: "darwin-arm64",
    denoTarget: "aarch64-apple-darwin",
    llamaPackage: "@node-llama-cpp/mac-arm64-metal",
    registryPlatform: "darwin-aarch64",
    homeBases: ["/Users"],
    systemLibraryDirs: [],
  },
  {
    name: "windows-x64",
    denoTarget: "x86_64-pc-windows-msvc",
    llamaPackage: "@node-llama-cpp/win-x64",
    registryPlatform: "windows-x86_64",
    homeBases: ["C:\\Users"],
    systemLibraryDirs: [],
  },
];

/** The release asset's file name: `llama-agent-<target>`, `.exe` on Windows. */
export function assetName(target: CompileTarget): string {
  return `llama-agent-${target.name}${isWindows(target) ? ".exe" : ""}`;
}

/** The binary's name inside the release archive: `llama-agent`, `llama-agent.exe` on Windows. */
export function archivedBinaryName(target: CompileTarget): string {
  return `llama-agent${isWindows(target) ? ".exe" : ""}`;
}

/**
 * The release archive's file name (the download the ACP Registry entry points at, which keeps the
 * executable bit a bare binary loses over HTTP): `llama-agent-<target>.tar.gz`, `.zip` on Windows.
 */
export function archiveName(target: CompileTarget): string {
  return `llama-agent-${target.name}${isWindows(target) ? ".zip" : ".tar.gz"}`;
}

function isWindows(target: CompileTarget): boolean {
  return target.name.startsWith("windows");
}

/**
 * What `npm install --omit=dev --omit=optional` plus the target's own node-llama-cpp package would
 * leave out of node_modules, from the lockfile: `deno compile` embeds the whole node_modules
 * directory, and the Deno CLI, the test clients and the other targets' native files do not
 * belong in the binary. Sorted, one top-level package directory per entry.
 */
export function excludedPackages(target: CompileTarget, lock: PackageLock): string[] {
  const excluded = Object.entries(lock.packages).filter(([path, entry]) => {
    const name = path.replace(/^node_modules\//, "");
    if (!path.startsWith("node_modules/") || name.includes("/node_modules/")) return false;
    if (name === target.llamaPackage) return false;
    if (name.startsWith("@node-llama-cpp/")) return true;
    return Boolean(entry.dev || entry.devOptional || entry.optional);
  }).map(([path]) => path);
  return ["node_modules/.bin", ...excluded].sort();
}

export interface PackageLock {
  readonly packages: Readonly<
    Record<string, { dev?: boolean; devOptional?: boolean; optional?: boolean }>
  >;
}

/**
 * The arguments of `deno` that build the target's binary, run from the repository root.
 * `--self-extracting`: node-llama-cpp's addon loads the libraries beside it (`$ORIGIN`) and its
 * CPU backends from its own directory, which must be real files on disk; the binary unpacks its
 * files next to itself on first run.
 */
export function compileArgs(
  target: CompileTarget,
  lock: PackageLock,
  output = `dist/${assetName(target)}`,
): string[] {
  const readWrite = [".", ...target.homeBases];
  return [
    "compile",
    "--no-prompt",
    "--self-extracting",
    "--target",
    target.denoTarget,
    `--allow-read=${permissionList([...readWrite, ...target.systemLibraryDirs])}`,
    `--allow-write=${permissionList(readWrite)}`,
    "--allow-run",
    "--allow-env",
    "--allow-sys",
    "--allow-ffi",
    "--allow-net",
    "--include",
    `node_modules/${target.llamaPackage}`,
    ...excludedPackages(target, lock).flatMap((path) => ["--exclude", path]),
    "--output",
    output,
    "main.ts",
  ];
}

/**
 * The value of `--allow-read` or `--allow-write`. Deno splits it at every comma and has no way to
 * escape one (2.9.6 refuses `a,,b` as an empty path), so a path with a comma would grant its
 * pieces instead, and an empty one is refused: either is a mistake in a target, thrown here.
 */
export function permissionList(paths: readonly string[]): string {
  for (const path of paths) {
    if (path === "" || path.includes(",")) {
      throw new Error(
        `Cannot grant ${JSON.stringify(path)} in a compiled binary: Deno reads a comma in a ` +
          "permission path as a separator and cannot escape one, and refuses an empty path",
      );
    }
  }
  return paths.join(",");
}

/** The target of the machine this runs on, if it is one we build. */
export function hostTarget(): CompileTarget | undefined {
  const os = { linux: "linux", darwin: "darwin", windows: "windows" }[Deno.build.os as string];
  const arch = { x86_64: "x64", aarch64: "arm64" }[Deno.build.arch as string];
  return COMPILE_TARGETS.find((t) => t.name === `${os}-${arch}`);
}

function usage(message: string): never {
  console.error(`compile: ${message}`);
  console.error(
    `usage: deno task compile [--target ${COMPILE_TARGETS.map((t) => t.name).join("|")}|--all] ` +
      "[--dry-run] [--fetch-native]",
  );
  Deno.exit(2);
}

async function main(args: readonly string[]): Promise<number> {
  const dryRun = args.includes("--dry-run");
  const fetchNative = args.includes("--fetch-native");
  const rest = args.filter((a) => a !== "--dry-run" && a !== "--fetch-native");
  let targets: readonly CompileTarget[];
  if (rest[0] === "--all" && rest.length === 1) targets = COMPILE_TARGETS;
  else if (rest[0] === "--target" && rest.length === 2) {
    const target = COMPILE_TARGETS.find((t) => t.name === rest[1]);
    if (!target) usage(`unknown target "${rest[1]}"`);
    targets = [target];
  } else if (rest.length === 0) {
    const host = hostTarget();
    if (!host) usage(`no prebuilt target for ${Deno.build.os}-${Deno.build.arch}: pass --target`);
    targets = [host];
  } else usage(`unexpected arguments: ${rest.join(" ")}`);

  const root = fileURLToPath(new URL("..", import.meta.url));
  const lock: PackageLock = JSON.parse(await Deno.readTextFile(`${root}/package-lock.json`));
  for (const target of targets) {
    const args = compileArgs(target, lock);
    console.error(`deno ${args.join(" ")}`);
    if (dryRun) continue;
    const installed = await Deno.stat(`${root}/node_modules/${target.llamaPackage}`)
      .then(() => true, () => false);
    if (!installed) {
      const { version } = JSON.parse(
        await Deno.readTextFile(`${root}/node_modules/node-llama-cpp/package.json`),
      );
      // --force: npm refuses a package for another OS or CPU without it.
      const npmArgs = [
        "install",
        "--no-save",
        "--force",
        "--omit=optional",
        `${target.llamaPackage}@${version}`,
      ];
      if (!fetchNative) {
        console.error(
          `compile: ${target.llamaPackage} is not installed; add it with\n  npm ${
            npmArgs.join(" ")
          }\n(or pass --fetch-native)`,
        );
        return 1;
      }
      console.error(`npm ${npmArgs.join(" ")}`);
      const npm = await new Deno.Command("npm", { args: npmArgs, cwd: root }).spawn().status;
      if (npm.code !== 0) return npm.code;
    }
    const { code } = await new Deno.Command(Deno.execPath(), { args, cwd: root }).spawn().status;
    if (code !== 0) return code;
  }
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
