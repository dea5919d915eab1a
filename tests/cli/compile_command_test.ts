/**
 * A runnable binary cannot be built on the machines these tests run on (`deno compile` downloads
 * its runtime from the Deno release server), so the compile command is kept right here: its exact
 * arguments, the grant it bakes in, and — built offline with the Deno CLI standing in for the
 * runtime — the files it embeds. Everything the binary does is tested through `bin/llama-agent`,
 * which runs the same `main.ts` with the same permission set.
 */
import {
  assetName,
  COMPILE_TARGETS,
  compileArgs,
  excludedPackages,
  hostTarget,
  type PackageLock,
  permissionList,
} from "../../tools/compile.ts";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../helpers/assert.ts";
import { REPO_ROOT } from "../helpers/run_cli.ts";

const DENO = `${REPO_ROOT}/node_modules/deno/deno`;

const LOCK: PackageLock = JSON.parse(await Deno.readTextFile(`${REPO_ROOT}/package-lock.json`));

Deno.test("the linux-x64 binary is compiled with bin/llama-agent's grant, self-extracting", () => {
  const linux = COMPILE_TARGETS.find((t) => t.name === "linux-x64")!;
  const args = compileArgs(linux, LOCK);
  const excludes = excludedPackages(linux, LOCK).flatMap((path) => ["--exclude", path]);
  assertEquals(args, [
    "compile",
    "--no-prompt",
    "--self-extracting",
    "--target",
    "x86_64-unknown-linux-gnu",
    "--allow-read=.,/home,/root,/lib,/lib64,/usr/lib,/usr/lib64",
    "--allow-write=.,/home,/root",
    "--allow-run",
    "--allow-env",
    "--allow-sys",
    "--allow-ffi",
    "--allow-net",
    "--include",
    "node_modules/@node-llama-cpp/linux-x64",
    ...excludes,
    "--output",
    "dist/llama-agent-linux-x64",
    "main.ts",
  ]);
});

Deno.test("what is left out: dev tools, optional packages, other targets' native files", () => {
  const linux = COMPILE_TARGETS.find((t) => t.name === "linux-x64")!;
  const excluded = excludedPackages(linux, LOCK);
  for (
    const path of [
      "node_modules/.bin",
      "node_modules/deno",
      "node_modules/@deno/linux-x64-glibc",
      "node_modules/acpx",
      "node_modules/esbuild",
      "node_modules/@modelcontextprotocol/server",
      "node_modules/@node-llama-cpp/mac-arm64-metal",
      "node_modules/@node-llama-cpp/linux-x64-cuda",
    ]
  ) assert(excluded.includes(path), `${path} is left out`);
  for (
    const path of [
      "node_modules/node-llama-cpp",
      "node_modules/@node-llama-cpp/linux-x64",
      "node_modules/@modelcontextprotocol/client",
      "node_modules/@agentclientprotocol/sdk",
      "node_modules/zod",
    ]
  ) assert(!excluded.includes(path), `${path} is embedded`);
  const mac = COMPILE_TARGETS.find((t) => t.name === "darwin-arm64")!;
  assert(!excludedPackages(mac, LOCK).includes("node_modules/@node-llama-cpp/mac-arm64-metal"));
  assert(excludedPackages(mac, LOCK).includes("node_modules/@node-llama-cpp/linux-x64"));
});

Deno.test("the host binary builds offline and embeds the llama binaries, not the dev tools", async () => {
  const host = hostTarget()!;
  const out = await Deno.makeTempDir({ prefix: "compile_" });
  try {
    const result = await new Deno.Command(DENO, {
      args: compileArgs(host, LOCK, `${out}/llama-agent`),
      cwd: REPO_ROOT,
      // The Deno CLI stands in for the runtime the release downloads: nothing is fetched.
      env: { DENORT_BIN: DENO, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const listing = new TextDecoder().decode(result.stdout) +
      new TextDecoder().decode(result.stderr);
    assertEquals(result.code, 0, listing.slice(-3000));
    // `deno compile` lists what it embeds: `├── zod/* (5.93MB)`, `├─┬ @modelcontextprotocol (...)`.
    const sizeOf = (name: string) =>
      new RegExp(`[─┬] ${name.replace(/[.]/g, "\\.")}(?:/\\*)? \\(([^)]*)\\)`).exec(listing)?.[1];
    for (const name of ["@node-llama-cpp", "node-llama-cpp", "@modelcontextprotocol", "zod"]) {
      assert(sizeOf(name) !== undefined, `${name} is embedded`);
    }
    for (const name of ["deno", "@deno", "acpx", "esbuild", "@esbuild", ".bin", "@types"]) {
      const size = sizeOf(name);
      assert(size === undefined || size === "0B", `${name} is not embedded (${size})`);
    }
    const total = /Files: ([\d.]+)MB/.exec(listing)?.[1];
    assert(Number(total) < 150, `${total} MB embedded: the dev tools stay out`);
    assertStringIncludes(listing, "main.ts");
    // What main.ts runs as a grep's matcher process (src/agent/search/grep_matcher.ts): the
    // listing names the file, or `search/*` where it embeds the whole of its folder.
    assert(
      /grep_matcher_process\.ts|[─┬] search\/\* \(/.test(listing),
      "the grep matcher process (src/agent/search/grep_matcher_process.ts) is embedded",
    );
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("every target has its Deno triple, asset name and home directories", () => {
  assertEquals(
    COMPILE_TARGETS.map((t) => [t.name, t.denoTarget, assetName(t), t.homeBases.join(",")]),
    [
      ["linux-x64", "x86_64-unknown-linux-gnu", "llama-agent-linux-x64", "/home,/root"],
      ["linux-arm64", "aarch64-unknown-linux-gnu", "llama-agent-linux-arm64", "/home,/root"],
      ["darwin-x64", "x86_64-apple-darwin", "llama-agent-darwin-x64", "/Users"],
      ["darwin-arm64", "aarch64-apple-darwin", "llama-agent-darwin-arm64", "/Users"],
      ["windows-x64", "x86_64-pc-windows-msvc", "llama-agent-windows-x64.exe", "C:\\Users"],
    ],
  );
  for (const target of COMPILE_TARGETS) {
    const args = compileArgs(target, LOCK);
    // Nothing is writable that is not also readable, and no system directory is writable.
    const write = args.find((a) => a.startsWith("--allow-write="))!.split("=")[1]!.split(",");
    const read = args.find((a) => a.startsWith("--allow-read="))!.split("=")[1]!.split(",");
    assert(write.every((dir) => read.includes(dir)), `${target.name}: writes ⊆ reads`);
    assert(write.every((dir) => !target.systemLibraryDirs.includes(dir)), target.name);
    assertEquals(args.filter((a) => a === "--include").length, 1, target.name);
    assertEquals(args.at(-1), "main.ts");
  }
});

Deno.test("each target includes a node-llama-cpp platform package of the pinned version", async () => {
  const llama = JSON.parse(
    await Deno.readTextFile(`${REPO_ROOT}/node_modules/node-llama-cpp/package.json`),
  );
  for (const target of COMPILE_TARGETS) {
    assertEquals(
      llama.optionalDependencies[target.llamaPackage],
      llama.version,
      `${target.llamaPackage} is a platform package of node-llama-cpp ${llama.version}`,
    );
  }
});

Deno.test("the host's included directory holds the native llama.cpp binding it loads", async () => {
  const host = hostTarget();
  assert(host !== undefined, "these tests run on a target we build");
  const dir = `${REPO_ROOT}/node_modules/${host.llamaPackage}/bins`;
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isDirectory) continue;
    for await (const file of Deno.readDir(`${dir}/${entry.name}`)) files.push(file.name);
  }
  assert(files.includes("llama-addon.node"), `llama-addon.node in ${dir}: ${files.join(", ")}`);
});

Deno.test("deno task compile --dry-run prints the host's command; an unknown target exits 2", async () => {
  const run = async (...args: string[]) => {
    const output = await new Deno.Command(DENO, {
      args: ["task", "compile", ...args],
      cwd: REPO_ROOT,
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    return { code: output.code, stderr: new TextDecoder().decode(output.stderr) };
  };
  const dry = await run("--dry-run");
  assertEquals(dry.code, 0, dry.stderr);
  assertStringIncludes(dry.stderr, `deno ${compileArgs(hostTarget()!, LOCK).join(" ")}`);
  const all = await run("--all", "--dry-run");
  assertEquals(all.stderr.split("\n").filter((l) => l.startsWith("deno compile")).length, 5);
  const bad = await run("--target", "sparc");
  assertEquals(bad.code, 2);
  assertStringIncludes(bad.stderr, 'unknown target "sparc"');
});

Deno.test("a baked permission path with a comma, or an empty one, is refused: Deno would split it", () => {
  assertEquals(permissionList([".", "/home", "C:\\Users"]), ".,/home,C:\\Users");
  for (const path of ["/srv/a,b", ""]) {
    assertThrows(() => permissionList(["/home", path]), Error, `Cannot grant "${path}"`);
  }
  const linux = COMPILE_TARGETS.find((t) => t.name === "linux-x64")!;
  assertThrows(
    () => compileArgs({ ...linux, homeBases: ["/home", "/srv/home,/"] }, LOCK),
    Error,
    'Cannot grant "/srv/home,/" in a compiled binary: Deno reads a comma',
  );
});

Deno.test("main.ts under the compiled binary's grant refuses a $HOME outside it, but answers --version", async () => {
  const cwd = await Deno.makeTempDir();
  try {
    const run = (...args: string[]) =>
      new Deno.Command(DENO, {
        args: [
          "run",
          "--config",
          `${REPO_ROOT}/deno.json`,
          `--allow-read=.,${REPO_ROOT}`,
          "--allow-write=.",
          "--allow-env",
          "--allow-run",
          "--allow-sys",
          "--allow-ffi",
          `${REPO_ROOT}/main.ts`,
          ...args,
        ],
        cwd,
        env: {
          HOME: "/nonexistent/elsewhere",
          NO_COLOR: "1",
          // Inherited from a llama-agent that bin/llama-agent started in another directory.
          LLAMA_AGENT_INSTALL_DIR: REPO_ROOT,
          LLAMA_AGENT_LAUNCH_DIR: "/nonexistent/project",
        },
        stdout: "piped",
        stderr: "piped",
      }).output();
    const refused = await run("hooks", "list");
    assertEquals(refused.code, 1);
    assertStringIncludes(
      new TextDecoder().decode(refused.stderr),
      'llama-agent: cannot read and write your home directory "/nonexistent/elsewhere": this ' +
        "llama-agent binary may only use",
    );
    const version = await run("--version");
    assertEquals(version.code, 0);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});
