/**
 * The editor set-up snippets of the README and of docs/ work as pasted: each one parses (JSON as
 * JSON, Lua and Emacs Lisp with balanced brackets and strings), and the command it names is
 * `llama-agent acp` with flags the real `acp` parser accepts and a model it can resolve. The
 * quick start is `hooks init` and `hooks test` in a project, then the install and a `hooks test`
 * of an example that exists.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { REPO_ROOT } from "../helpers/run_cli.ts";
import { acpCommand } from "../../src/cli/commands/acp.ts";
import { parseCommandLine } from "../../src/cli/parse_command_line.ts";
import { parseModelSource } from "../../src/model/model_source.ts";
import { z } from "zod";

const SNIPPET = /<!-- editor-snippet: ([a-z-]+) -->\n```(\w+)\n([\s\S]*?)\n```/g;

interface Snippet {
  readonly name: string;
  readonly language: string;
  readonly body: string;
}

/** The pages that hold snippets, relative to the repository. */
const PAGES = ["README.md", "docs/editors.md", "docs/models.md"] as const;

async function snippetsOf(page: string): Promise<Snippet[]> {
  const text = await Deno.readTextFile(`${REPO_ROOT}/${page}`);
  return [...text.matchAll(SNIPPET)].map(([, name, language, body]) => ({
    name: `${page}: ${name!}`,
    language: language!,
    body: body!,
  }));
}

async function allSnippets(): Promise<Snippet[]> {
  return (await Promise.all(PAGES.map(snippetsOf))).flat();
}

const AgentServer = z.strictObject({
  type: z.literal("custom").optional(),
  command: z.string(),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()).optional(),
});
const AgentServers = z.strictObject({
  agent_servers: z.strictObject({ "llama-agent": AgentServer }),
});

/** The strings of a Lua `{ "a", "b" }` or Lisp `'("a" "b")` list, in order. */
function quoted(list: string): string[] {
  return [...list.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!);
}

function must(match: RegExpMatchArray | null, what: string): string {
  assert(match !== null && match[1] !== undefined, `no ${what} found`);
  return match[1];
}

/** The command line a snippet starts, as its words. */
function commandLine(snippet: Snippet): string[] {
  switch (snippet.language) {
    case "json": {
      const server = AgentServers.parse(JSON.parse(snippet.body)).agent_servers["llama-agent"];
      // Zed's settings schema refuses a custom agent without it.
      if (snippet.name.split(": ")[1]!.startsWith("zed")) {
        assertEquals(server.type, "custom", 'Zed needs "type": "custom"');
      }
      return [server.command, ...server.args];
    }
    case "lua": {
      const list = snippet.body.match(/default = \{([^}]*)\}/);
      if (list) return quoted(list[1]!);
      return [
        must(snippet.body.match(/command = "([^"]+)"/), "command"),
        ...quoted(must(snippet.body.match(/args = \{([^}]*)\}/), "args")),
      ];
    }
    case "elisp":
      return [
        must(snippet.body.match(/:command "([^"]+)"/), ":command"),
        ...quoted(must(snippet.body.match(/:command-params '\(([^)]*)\)/), ":command-params")),
      ];
    case "sh":
      return must(snippet.body.match(/--agent "([^"]+)"/), "--agent").split(" ");
    default:
      throw new Error(`snippet "${snippet.name}" is in ${snippet.language}, unchecked here`);
  }
}

/** Brackets close in order outside strings and comments (a paste-breaking typo fails here). */
function assertBalanced(snippet: Snippet) {
  const pairs: Record<string, string> = { ")": "(", "]": "[", "}": "{" };
  const comment = snippet.language === "lua" ? "--" : ";";
  const open: string[] = [];
  for (const line of snippet.body.split("\n")) {
    let inString = false;
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      if (inString) {
        if (c === "\\") i++;
        else if (c === '"') inString = false;
      } else if (c === '"') {
        inString = true;
      } else if (line.startsWith(comment, i)) {
        break;
      } else if ("([{".includes(c)) {
        open.push(c);
      } else if (c in pairs) {
        assertEquals(open.pop(), pairs[c], `"${snippet.name}": unbalanced "${c}" in ${line}`);
      }
    }
    assert(!inString, `"${snippet.name}": unterminated string in ${line}`);
  }
  assertEquals(open, [], `"${snippet.name}": unclosed brackets`);
}

Deno.test("the README shows Zed's snippet, docs/editors.md each ACP client's and docs/models.md each server's", async () => {
  const names = async (page: string) =>
    (await snippetsOf(page)).map((snippet) => snippet.name.slice(page.length + 2));
  assertEquals(await names("README.md"), ["zed"]);
  assertEquals(await names("docs/editors.md"), [
    "zed",
    "jetbrains",
    "codecompanion",
    "avante",
    "agent-shell",
    "acpx",
  ]);
  assertEquals(await names("docs/models.md"), [
    "zed-ollama",
    "zed-lm-studio",
    "zed-llama-server",
    "zed-vllm",
  ]);
});

Deno.test("the README's Zed snippet is docs/editors.md's, and forces no profile", async () => {
  const [readme] = await snippetsOf("README.md");
  const [editors] = await snippetsOf("docs/editors.md");
  assertEquals(readme?.body, editors?.body);
  // A Claude Code setup must guard the agent with the snippet pasted as is: the profile follows
  // the hooks, so the snippet needs no --compat.
  assert(!commandLine(readme!).some((word) => word.startsWith("--compat")), readme!.body);
});

Deno.test("each editor snippet starts llama-agent acp with flags the acp parser accepts", async () => {
  for (const snippet of await allSnippets()) {
    if (snippet.language === "lua" || snippet.language === "elisp") assertBalanced(snippet);
    const [program, command, ...flags] = commandLine(snippet);
    assert(program?.split("/").at(-1) === "llama-agent", `"${snippet.name}" runs ${program}`);
    assertEquals(command, "acp", `"${snippet.name}" runs no acp command`);
    const parsed = parseCommandLine(acpCommand.spec, flags);
    assert(parsed.ok, `"${snippet.name}": ${parsed.ok ? "" : parsed.error}`);
    assertEquals(parsed.value.positionals, [], `"${snippet.name}" passes stray arguments`);
    const model = parsed.value.flags["model"];
    const endpoint = parsed.value.flags["endpoint"];
    if (typeof endpoint === "string") {
      // A server's snippet names its URL; the model, if named, is the server's id.
      assert(/^https?:\/\/[^/]+\/v1$/.test(endpoint), `"${snippet.name}": --endpoint ${endpoint}`);
      continue;
    }
    assert(typeof model === "string", `"${snippet.name}" names no --model`);
    parseModelSource(model, REPO_ROOT);
  }
});

/** The commands of a Markdown sh block, without their comments. */
function commandsOf(block: string): string[] {
  return block.split("\n").map((line) => line.replace(/\s+#.*$/, "").trim());
}

Deno.test("the quick start is hooks init and hooks test, then the install and hooks test of an example", async () => {
  const readme = await Deno.readTextFile(`${REPO_ROOT}/README.md`);
  const section = readme.split("## Quick start\n")[1]?.split("\n## ")[0] ?? "";
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)\n```/g)].map((match) => match[1]!);
  assertEquals(blocks.length, 2, section);
  assertEquals(commandsOf(blocks[0]!), ["llama-agent hooks init", "llama-agent hooks test"]);
  const [install, test] = commandsOf(blocks[1]!);
  assertEquals(install, "npm install --omit=optional");
  const example = test?.match(/^bin\/llama-agent hooks test --cwd (examples\/[\w-]+)$/);
  assert(example, test);
  assert((await Deno.stat(`${REPO_ROOT}/${example[1]}/.claude/settings.json`)).isFile);
});
