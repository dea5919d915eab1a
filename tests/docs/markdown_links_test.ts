/**
 * Every relative link of the README and of docs/ leads somewhere: to a file or directory of the
 * repository, and where it names an anchor, to a heading of that page (as GitHub makes anchors).
 * A page moved or a heading renamed without its links fails here.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { REPO_ROOT } from "../helpers/run_cli.ts";
import { dirname, join, normalize } from "node:path";

/** The Markdown pages whose links are checked, relative to the repository. */
async function pages(): Promise<string[]> {
  const docs: string[] = [];
  for await (const entry of Deno.readDir(`${REPO_ROOT}/docs`)) {
    if (entry.isFile && entry.name.endsWith(".md")) docs.push(`docs/${entry.name}`);
  }
  return ["README.md", ...docs.toSorted()];
}

/** The page's text outside fenced code blocks and HTML comments, with inline code emptied. */
function prose(markdown: string): string {
  let fenced = false;
  const kept: string[] = [];
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (!fenced) kept.push(line);
  }
  return kept.join("\n").replace(/<!--[\s\S]*?-->/g, "").replace(/(`+)[\s\S]*?\1/g, "``");
}

/** The targets of the page's inline links, `[text](target)`. */
function linkTargets(markdown: string): string[] {
  const link = /\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
  return [...prose(markdown).matchAll(link)].map((match) => match[1]!);
}

/** The anchors GitHub gives the page's headings: lower case, punctuation dropped, `-` for spaces. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : line.match(/^#{1,6}\s+(.+?)\s*#*\s*$/);
    if (!heading) continue;
    const text = heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
    const base = text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** What is wrong with one link of `page`, or undefined when it leads somewhere. */
async function brokenLink(page: string, target: string): Promise<string | undefined> {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto: ...
  const [path = "", anchor] = target.split("#", 2);
  const file = path === "" ? page : normalize(join(dirname(page), decodeURIComponent(path)));
  if (file.startsWith("..")) return `${target} leads out of the repository`;
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(join(REPO_ROOT, file));
  } catch {
    return `${target}: ${file} does not exist`;
  }
  if (anchor === undefined) return undefined;
  if (!info.isFile || !file.endsWith(".md")) return `${target}: an anchor into ${file}`;
  const anchors = headingAnchors(await Deno.readTextFile(join(REPO_ROOT, file)));
  return anchors.has(anchor) ? undefined : `${target}: ${file} has no heading "#${anchor}"`;
}

Deno.test("every relative link of the README and docs/ leads to a file and heading that exist", async () => {
  const broken: string[] = [];
  let checked = 0;
  for (const page of await pages()) {
    for (const target of linkTargets(await Deno.readTextFile(join(REPO_ROOT, page)))) {
      checked++;
      const problem = await brokenLink(page, target);
      if (problem !== undefined) broken.push(`${page}: ${problem}`);
    }
  }
  assertEquals(broken, []);
  assert(checked > 50, `only ${checked} links found: is the link pattern still right?`);
});

Deno.test("the README links to every page of docs/", async () => {
  const readme = await Deno.readTextFile(join(REPO_ROOT, "README.md"));
  const linked = new Set(linkTargets(readme).map((target) => target.split("#")[0]));
  const unlinked = (await pages()).slice(1).filter((page) => !linked.has(page));
  assertEquals(unlinked, [], 'add each page to the README\'s "Where to read more"');
});

Deno.test("the link check finds what is broken: a missing page, a missing heading, a way out", async () => {
  const page = "docs/example.md";
  assertEquals(await brokenLink(page, "missing.md"), "missing.md: docs/missing.md does not exist");
  assertEquals(
    await brokenLink(page, "hooks.md#no-such-heading"),
    'hooks.md#no-such-heading: docs/hooks.md has no heading "#no-such-heading"',
  );
  assertEquals(
    await brokenLink(page, "../../etc/passwd"),
    "../../etc/passwd leads out of the repository",
  );
  assertEquals(await brokenLink(page, "https://example.com/x.md#y"), undefined);
  assertEquals(await brokenLink(page, "hooks.md#if-rules"), undefined);
});

Deno.test("heading anchors are GitHub's: code and punctuation dropped, repeats numbered", () => {
  const anchors = headingAnchors(
    [
      "# Testing hooks: `llama-agent hooks test`",
      "## Updating expectations: `--update`",
      "## Neovim: avante.nvim",
      "## A new session's first token",
      "```sh",
      "# not a heading",
      "```",
      "## Examples",
      "## Examples",
    ].join("\n"),
  );
  assertEquals([...anchors], [
    "testing-hooks-llama-agent-hooks-test",
    "updating-expectations---update",
    "neovim-avantenvim",
    "a-new-sessions-first-token",
    "examples",
    "examples-1",
  ]);
});

Deno.test("links inside code, fenced blocks and comments are not links", () => {
  const text = [
    "See [hooks](hooks.md) and `[not](a.md)`.",
    "```md",
    "[nor](b.md)",
    "```",
    "<!-- [nor](c.md) -->",
    "[`code` text](d.md#x)",
  ].join("\n");
  assertEquals(linkTargets(text), ["hooks.md", "d.md#x"]);
});
