/**
 * tools/release_archive.ts packs a compiled binary into the archive the ACP Registry entry points
 * at. Checked with stand-in binaries (a shell script) and the system's own tar and unzip, as a
 * registry client would unpack them.
 */
import { COMPILE_TARGETS } from "../../tools/compile.ts";
import { packReleaseArchive } from "../../tools/release_archive.ts";
import { assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { REPO_ROOT } from "../helpers/run_cli.ts";

const target = (name: string) => COMPILE_TARGETS.find((t) => t.name === name)!;
const STAND_IN = "#!/bin/sh\necho 'the packed binary ran'\n";

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "llama_agent_archive_test_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function run(program: string, args: readonly string[], cwd?: string) {
  const output = await new Deno.Command(program, { args: [...args], cwd, stdin: "null" }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

Deno.test("a Linux binary is packed as an executable llama-agent alone in a .tar.gz, and runs once unpacked", async () => {
  await withTempDir(async (dir) => {
    // Written without the executable bit: the archive must carry it anyway.
    await Deno.writeTextFile(`${dir}/llama-agent-linux-x64`, STAND_IN, { mode: 0o644 });
    const archive = await packReleaseArchive(target("linux-x64"), dir);
    assertEquals(archive, `${dir}/llama-agent-linux-x64.tar.gz`);
    const listing = await run("tar", ["-tvzf", archive]);
    const lines = listing.stdout.trim().split("\n");
    assertEquals(lines.length, 1, listing.stdout);
    assertMatch(lines[0]!, /^-rwxr-xr-x .* llama-agent$/);
    await Deno.mkdir(`${dir}/unpacked`);
    assertEquals((await run("tar", ["-xzf", archive, "-C", `${dir}/unpacked`])).code, 0);
    assertEquals((await run(`${dir}/unpacked/llama-agent`, [])).stdout, "the packed binary ran\n");
  });
});

Deno.test("the Windows binary is packed as llama-agent.exe alone in a .zip, byte for byte", async () => {
  await withTempDir(async (dir) => {
    const bytes = crypto.getRandomValues(new Uint8Array(4096));
    await Deno.writeFile(`${dir}/llama-agent-windows-x64.exe`, bytes);
    const archive = await packReleaseArchive(target("windows-x64"), dir);
    assertEquals(archive, `${dir}/llama-agent-windows-x64.zip`);
    assertEquals((await run("unzip", ["-Z1", archive])).stdout, "llama-agent.exe\n");
    await Deno.mkdir(`${dir}/unpacked`);
    assertEquals((await run("unzip", ["-q", archive, "-d", `${dir}/unpacked`])).code, 0);
    assertEquals(await Deno.readFile(`${dir}/unpacked/llama-agent.exe`), bytes);
  });
});

Deno.test("packing again replaces the archive instead of adding to it", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/llama-agent-windows-x64.exe`, "first");
    await packReleaseArchive(target("windows-x64"), dir);
    await Deno.writeTextFile(`${dir}/llama-agent-windows-x64.exe`, "second");
    const archive = await packReleaseArchive(target("windows-x64"), dir);
    assertEquals((await run("unzip", ["-p", archive, "llama-agent.exe"])).stdout, "second");
  });
});

Deno.test("the command line packs the target it names, and refuses an unknown one or a missing binary", async () => {
  await withTempDir(async (dir) => {
    const tool = [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-run",
      "tools/release_archive.ts",
    ];
    await Deno.writeTextFile(`${dir}/llama-agent-darwin-arm64`, STAND_IN);
    const packed = await run(
      Deno.execPath(),
      [...tool, "--target", "darwin-arm64", "--dir", dir],
      REPO_ROOT,
    );
    assertEquals(packed.code, 0, packed.stderr);
    assertEquals(packed.stdout, `${dir}/llama-agent-darwin-arm64.tar.gz\n`);

    const unknown = await run(Deno.execPath(), [...tool, "--target", "plan9-x64"], REPO_ROOT);
    assertEquals(unknown.code, 2);
    assertStringIncludes(unknown.stderr, 'release_archive: unknown target "plan9-x64"');

    const missing = await run(
      Deno.execPath(),
      [...tool, "--target", "linux-arm64", "--dir", dir],
      REPO_ROOT,
    );
    assertEquals(missing.code, 1);
    assertStringIncludes(missing.stderr, `${dir}/llama-agent-linux-arm64`);
  });
});
