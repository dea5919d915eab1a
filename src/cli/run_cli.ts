/**
 * Walks the command tree: `--help` and `--version` work at every level, unknown commands and
 * flags are usage errors (exit 2) that say what to run instead.
 */
import { VERSION } from "../version.ts";
import { COMMAND_TREE, type GroupNode } from "./command_tree.ts";
import { type CliIo, EXIT } from "./command_spec.ts";
import { parseCommandLine, renderHelp } from "./parse_command_line.ts";

export async function runCli(args: readonly string[], io: CliIo): Promise<number> {
  if (wantsVersion(args)) {
    io.stdout(`llama-agent ${VERSION}\n`);
    return EXIT.ok;
  }
  let group: GroupNode = COMMAND_TREE;
  const path: string[] = [];
  for (let i = 0; i <= args.length; i++) {
    const word = args[i];
    if (word === undefined || word === "--help" || word === "-h" || word === "help") {
      io.stdout(renderGroupHelp(path, group));
      return EXIT.ok;
    }
    const node = Object.hasOwn(group.children, word) ? group.children[word] : undefined;
    if (node === undefined) {
      const where = ["llama-agent", ...path].join(" ");
      const what = word.startsWith("-") ? `Unknown flag "${word}"` : `Unknown command "${word}"`;
      io.stderr(`${what} for "${where}": run "${where} --help" for the commands\n`);
      return EXIT.usage;
    }
    path.push(word);
    if (node.kind === "group") {
      group = node;
      continue;
    }
    const command = await node.load();
    const rest = args.slice(i + 1);
    return await command.run(rest, io);
  }
  return EXIT.usage;
}

/** `--version` anywhere before `--`, as long as it is not the value of a flag. */
function wantsVersion(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  const words = end === -1 ? args : args.slice(0, end);
  return words.includes("--version") || words.includes("-V");
}

function renderGroupHelp(path: readonly string[], group: GroupNode): string {
  const name = ["llama-agent", ...path].join(" ");
  const entries = Object.entries(group.children);
  const width = Math.max(...entries.map(([word]) => word.length));
  const lines = [
    `${name}: ${group.summary}`,
    "",
    `Usage: ${name} <command> [flags]`,
  ];
  if (group.description) lines.push("", group.description);
  lines.push("", "Commands:");
  for (const [word, node] of entries) lines.push(`  ${word.padEnd(width)}  ${node.summary}`);
  lines.push(
    "",
    "Flags:",
    "  -h, --help     Show this help",
    "  -V, --version  Show the version",
    "",
    `Run "${name} <command> --help" for a command's flags.`,
  );
  return lines.join("\n") + "\n";
}

export { parseCommandLine, renderHelp };
