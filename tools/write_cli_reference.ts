/**
 * Keeps the CLI reference (docs/cli.md) equal to what `--help` prints (`deno task docs`). Each
 * command's help sits there between `<!-- cli-help: <command> -->` and `<!-- /cli-help -->`;
 * this rewrites those blocks from the commands themselves, and a test fails when the committed
 * page differs.
 */
import { fileURLToPath } from "node:url";
import { runCliCapturingOutput } from "../src/cli/run_cli.ts";

export const CLI_REFERENCE_PATH = fileURLToPath(new URL("../docs/cli.md", import.meta.url));

/** Every command whose help the CLI reference shows, in the order it shows them. */
export const DOCUMENTED_COMMANDS: readonly string[] = [
  "llama-agent",
  "llama-agent acp",
  "llama-agent doctor",
  "llama-agent hooks",
  "llama-agent hooks init",
  "llama-agent hooks list",
  "llama-agent hooks lint",
  "llama-agent hooks run",
  "llama-agent hooks schema",
  "llama-agent hooks test",
];

const BLOCK = /<!-- cli-help: ([a-z -]+) -->\n[\s\S]*?<!-- \/cli-help -->/g;

/** What `<command> --help` prints (`command` starts with `llama-agent`). */
export async function helpText(command: string): Promise<string> {
  const args = [...command.split(" ").slice(1), "--help"];
  const { code, stdout } = await runCliCapturingOutput(args);
  if (code !== 0) throw new Error(`llama-agent ${args.join(" ")} exited ${code}`);
  return stdout.trimEnd();
}

/** The page with every help block rewritten; throws on a block for an unknown command. */
export async function withCurrentHelp(page: string): Promise<string> {
  const texts = new Map<string, string>();
  for (const command of DOCUMENTED_COMMANDS) texts.set(command, await helpText(command));
  return page.replace(BLOCK, (_, command: string) => {
    const text = texts.get(command);
    if (text === undefined) {
      throw new Error(`${CLI_REFERENCE_PATH} shows help of an unknown command "${command}"`);
    }
    return `<!-- cli-help: ${command} -->\n\`\`\`text\n${text}\n\`\`\`\n<!-- /cli-help -->`;
  });
}

/** The commands the page has a help block for, in order. */
export function documentedIn(page: string): string[] {
  return [...page.matchAll(BLOCK)].map((match) => match[1]!);
}

if (import.meta.main) {
  const page = await Deno.readTextFile(CLI_REFERENCE_PATH);
  await Deno.writeTextFile(CLI_REFERENCE_PATH, await withCurrentHelp(page));
}
