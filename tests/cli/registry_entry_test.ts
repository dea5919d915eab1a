/**
 * tools/registry_entry.ts writes the release's ACP Registry entry (`agent.json`) from the built
 * archives. Checked against fake archives (random bytes), with checksums from the system's
 * `sha256sum` rather than the tool's own code, and against the rules of the registry's
 * `agent.schema.json` and CONTRIBUTING.md, written out here.
 */
import { COMPILE_TARGETS } from "../../tools/compile.ts";
import { type RegistryEntry, registryEntry } from "../../tools/registry_entry.ts";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../helpers/assert.ts";
import { REPO_ROOT } from "../helpers/run_cli.ts";

const ARCHIVES = [
  "llama-agent-linux-x64.tar.gz",
  "llama-agent-linux-arm64.tar.gz",
  "llama-agent-darwin-x64.tar.gz",
  "llama-agent-darwin-arm64.tar.gz",
  "llama-agent-windows-x64.zip",
];

const PACKAGE = JSON.parse(await Deno.readTextFile(`${REPO_ROOT}/package.json`));
/** The tag of a release of the checked-out version. */
const TAG = `v${PACKAGE.version}`;

async function withFakeArchives(
  names: readonly string[],
  fn: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "llama_agent_registry_test_" });
  try {
    for (const name of names) {
      // Bigger than one read chunk, so the checksum covers more than the first.
      const bytes = new Uint8Array(200_000);
      for (let at = 0; at < bytes.length; at += 50_000) {
        crypto.getRandomValues(bytes.subarray(at, at + 50_000));
      }
      await Deno.writeFile(`${dir}/${name}`, bytes);
    }
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function runTool(args: readonly string[]) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "tools/registry_entry.ts", ...args],
    cwd: REPO_ROOT,
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** `sha256sum`'s checksum of each file in `dir`, by name. */
async function systemChecksums(
  dir: string,
  names: readonly string[],
): Promise<Map<string, string>> {
  const output = await new Deno.Command("sha256sum", { args: [...names], cwd: dir }).output();
  return new Map(
    new TextDecoder().decode(output.stdout).trim().split("\n").map((line) => {
      const [sum, name] = line.split(/\s+\*?/);
      return [name!, sum!];
    }),
  );
}

Deno.test("agent.json lists every target's archive at the tag's download URL with its SHA-256, starting acp", async () => {
  await withFakeArchives(ARCHIVES, async (dir) => {
    const run = await runTool([
      "--tag",
      TAG,
      "--repository",
      "acme/llama-agent",
      "--dir",
      dir,
    ]);
    assertEquals(run.code, 0, run.stderr);
    assertEquals(
      run.stdout,
      `${dir}/agent.json: linux-x86_64, linux-aarch64, darwin-x86_64, darwin-aarch64, windows-x86_64\n`,
    );
    const entry = JSON.parse(await Deno.readTextFile(`${dir}/agent.json`));
    const sums = await systemChecksums(dir, ARCHIVES);
    const download = `https://github.com/acme/llama-agent/releases/download/${TAG}`;
    const unix = (archive: string) => ({
      archive: `${download}/${archive}`,
      sha256: sums.get(archive),
      cmd: "./llama-agent",
      args: ["acp"],
    });
    assertEquals(entry, {
      id: "llama-agent",
      name: "llama-agent",
      version: PACKAGE.version,
      description: PACKAGE.description,
      repository: "https://github.com/acme/llama-agent",
      license: PACKAGE.license,
      distribution: {
        binary: {
          "linux-x86_64": unix("llama-agent-linux-x64.tar.gz"),
          "linux-aarch64": unix("llama-agent-linux-arm64.tar.gz"),
          "darwin-x86_64": unix("llama-agent-darwin-x64.tar.gz"),
          "darwin-aarch64": unix("llama-agent-darwin-arm64.tar.gz"),
          "windows-x86_64": {
            archive: `${download}/llama-agent-windows-x64.zip`,
            sha256: sums.get("llama-agent-windows-x64.zip"),
            cmd: "llama-agent.exe",
            args: ["acp"],
          },
        },
      },
    });
  });
});

/** The registry's rules for an entry, as its schema and contributing guide state them. */
function registryProblems(entry: RegistryEntry): string[] {
  const problems: string[] = [];
  const topKeys = [
    "id",
    "name",
    "version",
    "description",
    "repository",
    "website",
    "authors",
    "license",
    "license_url",
    "icon",
    "distribution",
  ];
  for (const key of ["id", "name", "version", "description", "distribution"]) {
    if (!(key in entry)) problems.push(`missing "${key}"`);
  }
  for (const key of Object.keys(entry)) {
    if (!topKeys.includes(key)) problems.push(`unknown key "${key}"`);
  }
  if (!/^[a-z][a-z0-9-]*$/.test(entry.id)) problems.push(`bad id "${entry.id}"`);
  if (!/^[0-9]+\.[0-9]+\.[0-9]+/.test(entry.version)) problems.push("bad version");
  if (entry.name === "" || entry.description === "") problems.push("empty name or description");
  const platforms = [
    "darwin-aarch64",
    "darwin-x86_64",
    "linux-aarch64",
    "linux-x86_64",
    "windows-aarch64",
    "windows-x86_64",
  ];
  for (const key of Object.keys(entry.distribution)) {
    if (!["binary", "npx", "uvx"].includes(key)) problems.push(`unknown distribution "${key}"`);
  }
  for (const [platform, target] of Object.entries(entry.distribution.binary)) {
    if (!platforms.includes(platform)) problems.push(`unknown platform "${platform}"`);
    for (const key of Object.keys(target)) {
      if (!["archive", "sha256", "cmd", "args", "env"].includes(key)) {
        problems.push(`${platform}: unknown key "${key}"`);
      }
    }
    if (!/^[a-fA-F0-9]{64}$/.test(target.sha256)) problems.push(`${platform}: bad sha256`);
    if (!/\.(zip|tar\.gz|tgz|tar\.bz2|tbz2)$/.test(target.archive)) {
      problems.push(`${platform}: unsupported archive "${target.archive}"`);
    }
    if (target.archive.includes("/latest/")) problems.push(`${platform}: a "latest" URL`);
    if (!target.archive.includes(`/download/v${entry.version}/`)) {
      problems.push(`${platform}: the URL's version is not the entry's`);
    }
    if (target.cmd === "") problems.push(`${platform}: empty cmd`);
  }
  return problems;
}

function checksumsFor(names: readonly string[]): Map<string, string> {
  return new Map(names.map((name, i) => [name, String(i).repeat(64)]));
}

const ALL = checksumsFor(COMPILE_TARGETS.map((t) => t.name));
const INPUT = {
  repository: "acme/llama-agent",
  packageVersion: "1.2.3",
  description: "d",
  license: "MIT",
  checksums: ALL,
};

Deno.test("the entry keeps to the registry's schema and rules, covering all three OS families", () => {
  const entry = registryEntry({ ...INPUT, tag: "v1.2.3" });
  assertEquals(registryProblems(entry), []);
  const families = new Set(Object.keys(entry.distribution.binary).map((p) => p.split("-")[0]));
  assertEquals([...families].sort(), ["darwin", "linux", "windows"]);
  // The rules are not vacuous: an entry that breaks them is caught.
  const broken = {
    ...entry,
    id: "Llama_Agent",
    distribution: {
      binary: {
        "linux-x86_64": {
          ...entry.distribution.binary["linux-x86_64"]!,
          archive: "https://example.com/latest/llama-agent.deb",
        },
      },
    },
  };
  assertEquals(registryProblems(broken), [
    'bad id "Llama_Agent"',
    'linux-x86_64: unsupported archive "https://example.com/latest/llama-agent.deb"',
    'linux-x86_64: a "latest" URL',
    "linux-x86_64: the URL's version is not the entry's",
  ]);
});

Deno.test("a pre-release tag keeps its suffix in the version and the URLs", () => {
  const entry = registryEntry({ ...INPUT, packageVersion: "1.0.0-rc.1", tag: "v1.0.0-rc.1" });
  assertEquals(entry.version, "1.0.0-rc.1");
  assertStringIncludes(
    entry.distribution.binary["darwin-aarch64"]!.archive,
    "/releases/download/v1.0.0-rc.1/llama-agent-darwin-arm64.tar.gz",
  );
  assertEquals(registryProblems(entry), []);
});

Deno.test("a tag that is not a version, or a repository that is not OWNER/NAME, is refused", () => {
  for (const tag of ["nightly", "1.2.3", "v1.2", "v1.2.3/../x"]) {
    assertThrows(
      () => registryEntry({ ...INPUT, tag }),
      Error,
      `the tag "${tag}" is not a version (vMAJOR.MINOR.PATCH, e.g. "v1.2.3")`,
    );
  }
  for (const repository of ["llama-agent", "a/b/c", "https://github.com/a/b"]) {
    assertThrows(
      () => registryEntry({ ...INPUT, tag: "v1.2.3", repository }),
      Error,
      `the repository "${repository}" is not "OWNER/NAME"`,
    );
  }
});

Deno.test("a tag other than package.json's version (what the binary reports) is refused", () => {
  assertThrows(
    () => registryEntry({ ...INPUT, tag: "v1.2.4" }),
    Error,
    `the tag "v1.2.4" is not package.json's version "1.2.3": bump the version in package.json before tagging`,
  );
});

Deno.test("a checksum that is not 64 hex digits is refused, naming the archive", () => {
  const checksums = new Map(ALL).set("linux-arm64", "abc");
  assertThrows(
    () => registryEntry({ ...INPUT, tag: "v1.2.3", checksums }),
    Error,
    'the checksum of "llama-agent-linux-arm64.tar.gz" is not 64 lowercase hex digits: "abc"',
  );
});

Deno.test("missing archives are refused, each named, and no agent.json is written", async () => {
  const present = ARCHIVES.filter((a) => !a.includes("darwin"));
  await withFakeArchives(present, async (dir) => {
    const run = await runTool([
      "--tag",
      TAG,
      "--repository",
      "acme/llama-agent",
      "--dir",
      dir,
    ]);
    assertEquals(run.code, 1);
    assertEquals(
      run.stderr,
      "registry_entry: Cannot write the ACP Registry entry: no archive for " +
        '"llama-agent-darwin-x64.tar.gz", "llama-agent-darwin-arm64.tar.gz"\n',
    );
    assert(!(await Deno.stat(`${dir}/agent.json`).then(() => true, () => false)));
  });
});

Deno.test("without --tag or --repository the tool says what it needs", async () => {
  const run = await runTool(["--tag", "v1.2.3"]);
  assertEquals(run.code, 2);
  assertStringIncludes(run.stderr, "registry_entry: expected --tag and --repository");
});
