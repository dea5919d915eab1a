import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { REPO_ROOT, runCli, withTempProject } from "../helpers/run_cli.ts";
import packageJson from "../../package.json" with { type: "json" };

async function inTemp<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "llama-agent-cli-" }));
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const run = (args: string[]) => inTemp((dir) => runCli(args, { cwd: dir, home: dir }));

Deno.test("--version prints the package version at every level", async () => {
  for (
    const args of [["--version"], ["-V"], ["hooks", "--version"], ["hooks", "list", "--version"]]
  ) {
    const result = await run(args);
    assertEquals(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
    assertEquals(result.stdout, `llama-agent ${packageJson.version}\n`);
    assertEquals(result.stderr, "");
  }
});

Deno.test("--version --verbose adds the Deno version, the platform and how hooks are spawned", async () => {
  for (const args of [["--version", "--verbose"], ["hooks", "--verbose", "-V"]]) {
    const result = await run(args);
    assertEquals(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
    assertEquals(result.stderr, "");
    const [first, ...rest] = result.stdout.trimEnd().split("\n");
    assertEquals(first, `llama-agent ${packageJson.version}`);
    assertMatch(rest.join("\n"), /^deno: \d+\.\d+\.\d+/m);
    assertMatch(rest.join("\n"), new RegExp(`^os: ${Deno.build.os} ${Deno.build.arch}$`, "m"));
    assertMatch(rest.join("\n"), /^spawn: .*(posix_spawn|setsid)/m);
  }
});

Deno.test("--version --verbose with LLAMA_AGENT_SPAWN=setsid names the setsid(1) fallback", async () => {
  const result = await inTemp((dir) =>
    runCli(["--version", "--verbose"], {
      cwd: dir,
      home: dir,
      env: { LLAMA_AGENT_SPAWN: "setsid" },
    })
  );
  assertEquals(result.code, 0, result.stderr);
  assertMatch(result.stdout, /^spawn: .*setsid/m);
});

Deno.test("--verbose means nothing without --version: an unknown flag", async () => {
  const result = await run(["--verbose"]);
  assertEquals(result.code, 2);
  assertEquals(result.stdout, "");
  assertStringIncludes(result.stderr, 'Unknown flag "--verbose" for "llama-agent"');
});

Deno.test("--help at every level lists what can be run there", async () => {
  const top = await run(["--help"]);
  assertEquals(top.code, 0);
  assertStringIncludes(top.stdout, "Usage: llama-agent <command>");
  assertStringIncludes(top.stdout, "hooks");
  const hooks = await run(["hooks", "--help"]);
  assertEquals(hooks.code, 0);
  for (const sub of ["list", "lint", "run", "test"]) {
    assertMatch(hooks.stdout, new RegExp(`^  ${sub} `, "m"));
  }
  for (const sub of ["list", "lint", "run", "test"]) {
    const leaf = await run(["hooks", sub, "--help"]);
    assertEquals(leaf.code, 0, leaf.stderr);
    assertStringIncludes(leaf.stdout, `Usage: llama-agent hooks ${sub}`);
    assertStringIncludes(leaf.stdout, "--cwd DIR");
  }
});

Deno.test("an unknown command or flag is a usage error with exit 2 and a hint", async () => {
  const command = await run(["frobnicate"]);
  assertEquals(command.code, 2);
  assertEquals(command.stdout, "");
  assertEquals(
    command.stderr,
    'Unknown command "frobnicate" for "llama-agent": run "llama-agent --help" for the commands\n',
  );
  const flag = await run(["hooks", "list", "--frob"]);
  assertEquals(flag.code, 2);
  assertStringIncludes(flag.stderr, 'Unknown flag "--frob" for "llama-agent hooks list"');
  const choice = await run(["hooks", "lint", "--format", "xml"]);
  assertEquals(choice.code, 2);
  assertStringIncludes(choice.stderr, 'does not accept "xml"');
  const missing = await run(["hooks", "run"]);
  assertEquals(missing.code, 2);
  assertStringIncludes(missing.stderr, "Missing argument EVENT");
});

interface GraphModule {
  readonly specifier: string;
  readonly dependencies?: readonly {
    readonly isDynamic?: boolean;
    readonly code?: { readonly specifier: string };
    readonly type?: { readonly specifier: string };
  }[];
}

/** Every module `entry` loads before it runs: its graph through static imports only. */
async function staticGraph(entry: string): Promise<string[]> {
  const info = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", `${REPO_ROOT}/${entry}`],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(info.success, new TextDecoder().decode(info.stderr));
  const graph: { roots: string[]; modules: GraphModule[]; redirects: Record<string, string> } = JSON
    .parse(new TextDecoder().decode(info.stdout));
  const bySpecifier = new Map(graph.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const queue = [...graph.roots];
  while (queue.length > 0) {
    const specifier = queue.pop()!;
    const resolved = graph.redirects[specifier] ?? specifier;
    if (seen.has(resolved)) continue;
    seen.add(resolved);
    for (const dep of bySpecifier.get(resolved)?.dependencies ?? []) {
      if (dep.isDynamic) continue;
      if (dep.code) queue.push(dep.code.specifier);
    }
  }
  return [...seen];
}

Deno.test("no command loads node-llama-cpp at start-up: only the llama backend imports it, lazily", async () => {
  for (
    const entry of [
      "main.ts",
      "src/cli/commands/hooks_list.ts",
      "src/cli/commands/hooks_lint.ts",
      "src/cli/commands/hooks_run.ts",
      "src/cli/commands/hooks_test.ts",
      "src/cli/commands/acp.ts",
    ]
  ) {
    const modules = await staticGraph(entry);
    assert(modules.length > 3, `no graph for ${entry}`);
    const llama = modules.filter((m) =>
      m.includes("node-llama-cpp") || m.endsWith("/llama_model.ts")
    );
    assertEquals(llama, [], `${entry} reaches the llama backend statically`);
  }
});

// outside_grant.ts is a leaf of the root (how a path outside the grant is said), as small as
// the others allowed here.
Deno.test("--version and --help load only the command tree: no hook, agent or npm module", async () => {
  const modules = await staticGraph("main.ts");
  const heavy = modules.filter((m) =>
    !m.startsWith("file:") || m.includes("/node_modules/") ||
    !/\/src\/(cli\/|version\.ts|nearest_name\.ts|outside_grant\.ts)|\/main\.ts$|\/package\.json$/
      .test(m)
  );
  assertEquals(heavy, [], "main.ts loads these before --version prints");
});

Deno.test("the launcher starts Deno with lazy dynamic imports, so the commands load only when run", async () => {
  // Without the flag, Deno reads every module a literal import() reaches before main.ts runs.
  await withTempProject({
    "fake_deno.sh": { text: '#!/bin/sh\nprintf "%s\\n" "$@"\n', mode: 0o755 },
  }, async (dir) => {
    const result = await runCli(["--version"], {
      cwd: dir,
      home: dir,
      env: { LLAMA_AGENT_DENO: `${dir}/fake_deno.sh` },
    });
    assertEquals(result.code, 0, result.stderr);
    const args = result.stdout.split("\n");
    assertEquals(args[0], "run");
    assert(args.includes("--unstable-lazy-dynamic-imports"), result.stdout);
    assertEquals(args.slice(-3), [`${REPO_ROOT}/main.ts`, "--version", ""]);
  });
});

Deno.test("a --cwd outside the allowed roots is a clear error, not a stack trace", async () => {
  await inTemp(async (dir) => {
    const result = await runCli(["hooks", "list", "--cwd", "/etc"], { cwd: dir, home: dir });
    assertEquals(result.code, 2);
    assertStringIncludes(result.stderr, '"/etc"');
    assertStringIncludes(result.stderr, "llama-agent may only use files under");
    assert(!result.stderr.includes("    at "), result.stderr);
  });
});

/** The llama backend: the files that may import node-llama-cpp; the first is its only door. */
const LLAMA_BACKEND = [
  "src/model/llama/llama_model.ts",
  "src/model/llama/llama_grammars.ts",
  "src/model/llama/llama_prefix_state.ts",
  "src/model/llama/llama_session.ts",
  "src/model/llama/llama_tool_choice.ts",
];

Deno.test("node-llama-cpp is imported only by the llama backend, and the rest reach it through llama_model.ts", async () => {
  const importers: string[] = [];
  const backendUsers: string[] = [];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".ts")) {
        const source = await Deno.readTextFile(path);
        const relative = path.slice(REPO_ROOT.length + 1);
        if (/from "node-llama-cpp"|import\("node-llama-cpp"\)/.test(source)) {
          importers.push(relative);
        }
        if (
          !LLAMA_BACKEND.includes(relative) &&
          /\/llama_(session|prefix_state|grammars|tool_choice)\.ts"/.test(source)
        ) {
          backendUsers.push(relative);
        }
      }
    }
  };
  await walk(`${REPO_ROOT}/src`);
  assertEquals(importers.sort(), [...LLAMA_BACKEND].sort());
  assertEquals(backendUsers, [], "only llama_model.ts is imported from outside the backend");
});
