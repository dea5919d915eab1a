/**
 * The tree is the architecture (ARCHITECTURE.md): each folder of src/ is a room, imports run
 * downwards between rooms, only src/os/ opens the C library or starts a process, and no folder
 * grows into a bag.
 * The checks are pure functions of `{path: source}`, run on the real tree and on planted trees.
 */
import { assertEquals } from "./helpers/assert.ts";
import { REPO_ROOT } from "./helpers/run_cli.ts";

/** A room is src/'s first folder; "" for the files at src/'s root. */
type Room =
  | ""
  | "cli"
  | "doctor"
  | "testing"
  | "acp"
  | "agent"
  | "hooks"
  | "model"
  | "os"
  | "profile";

/**
 * What each room may import besides itself. `hooks` and `model` do not know each other; nothing
 * below `cli` knows `doctor`; `os` and `profile` know only the root files.
 */
const MAY_IMPORT: Record<Room, readonly Room[]> = {
  cli: ["doctor", "testing", "acp", "agent", "hooks", "model", "os", "profile", ""],
  doctor: ["acp", "agent", "hooks", "model", "os", "profile", ""],
  testing: ["acp", "agent", "hooks", "model", "os", "profile", ""],
  acp: ["agent", "hooks", "model", "os", "profile", ""],
  agent: ["hooks", "model", "os", "profile", ""],
  hooks: ["os", "profile", ""],
  model: ["os", "profile", ""],
  os: [""],
  profile: [""],
  "": [],
};

/** Files a folder of src/ may hold of its own, not counting its sub-folders. */
const MAX_FILES_PER_FOLDER = 30;

const SPECIFIER =
  /(?:\bfrom|\bimport|\bexport\s*\*\s*from)\s*\(?\s*["'](\.{1,2}\/[^"'\n]+\.ts)["']/g;

function roomOf(path: string): Room | undefined {
  const parts = path.split("/");
  if (parts[0] !== "src") return undefined;
  if (parts.length === 2) return "";
  const room = parts[1] as Room;
  return room in MAY_IMPORT ? room : undefined;
}

function resolve(from: string, specifier: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

/** `importer -> imported` for every import between rooms that MAY_IMPORT does not allow. */
export function forbiddenImports(sources: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [path, source] of sources) {
    const from = roomOf(path);
    if (from === undefined) {
      found.push(`${path}: not in a known room of src/`);
      continue;
    }
    for (const match of source.matchAll(SPECIFIER)) {
      const target = resolve(path, match[1]!);
      const to = roomOf(target);
      if (to === from) continue;
      if (to === undefined || !MAY_IMPORT[from].includes(to)) found.push(`${path} -> ${target}`);
    }
  }
  return found.sort();
}

/** The files that open a shared library themselves, outside src/os/. */
export function dlopenOutsideOs(sources: ReadonlyMap<string, string>): string[] {
  return [...sources]
    .filter(([path, source]) => !path.startsWith("src/os/") && /\bDeno\.dlopen\s*\(/.test(source))
    .map(([path]) => path)
    .sort();
}

/** The files that start a process with `Deno.Command` themselves, outside src/os/process/. */
export function commandOutsideProcess(sources: ReadonlyMap<string, string>): string[] {
  return [...sources]
    .filter(([path, source]) =>
      !path.startsWith("src/os/process/") && /\bnew\s+Deno\.Command\s*\(/.test(source)
    )
    .map(([path]) => path)
    .sort();
}

/** `folder: count` for each folder of src/ with more files of its own than the limit. */
export function crowdedFolders(paths: Iterable<string>): string[] {
  const counts = new Map<string, number>();
  for (const path of paths) {
    const folder = path.slice(0, path.lastIndexOf("/"));
    counts.set(folder, (counts.get(folder) ?? 0) + 1);
  }
  return [...counts].filter(([, count]) => count > MAX_FILES_PER_FOLDER)
    .map(([folder, count]) => `${folder}: ${count}`).sort();
}

async function readSources(): Promise<Map<string, string>> {
  const sources = new Map<string, string>();
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(`${REPO_ROOT}/${dir}`)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".ts")) {
        sources.set(path, await Deno.readTextFile(`${REPO_ROOT}/${path}`));
      }
    }
  };
  await walk("src");
  return sources;
}

const sources = await readSources();

Deno.test("imports between the rooms of src/ run downwards, and hooks and model do not know each other", () => {
  assertEquals(forbiddenImports(sources), []);
});

Deno.test("only src/os/ opens the C library", () => {
  assertEquals(dlopenOutsideOs(sources), []);
});

Deno.test("only src/os/process/ starts a process with Deno.Command", () => {
  assertEquals(commandOutsideProcess(sources), []);
});

Deno.test(`no folder of src/ holds more than ${MAX_FILES_PER_FOLDER} files of its own`, () => {
  assertEquals(crowdedFolders(sources.keys()), []);
});

Deno.test("the checks catch an upward import, a sideways one, a dlopen or a Deno.Command outside os, a crowded folder", () => {
  const planted = new Map([
    ["src/hooks/decision.ts", 'import { x } from "../acp/turn/prompt_turn.ts";'],
    ["src/model/llama/llama_model.ts", 'import type { Y } from "../../hooks/registry.ts";'],
    [
      "src/os/process/libc.ts",
      'import "../../agent/tools/tool_kit.ts";\nDeno.dlopen("libc.so.6", {});',
    ],
    ["src/agent/search/file_walk.ts", 'const lib = Deno.dlopen("libc.so.6", {});'],
    ["src/acp/turn/tool_hooks.ts", 'import { z } from "../../hooks/lint/plugin_lint.ts";'],
    ["src/agent/shell/shell_session.ts", 'new Deno.Command("/bin/sh", { args: ["-c", "x"] });'],
  ]);
  assertEquals(forbiddenImports(planted), [
    "src/hooks/decision.ts -> src/acp/turn/prompt_turn.ts",
    "src/model/llama/llama_model.ts -> src/hooks/registry.ts",
    "src/os/process/libc.ts -> src/agent/tools/tool_kit.ts",
  ]);
  assertEquals(dlopenOutsideOs(planted), ["src/agent/search/file_walk.ts"]);
  assertEquals(commandOutsideProcess(planted), ["src/agent/shell/shell_session.ts"]);
  const crowded = Array.from({ length: 31 }, (_, i) => `src/agent/f${i}.ts`);
  assertEquals(crowdedFolders([...crowded, "src/agent/tools/a.ts"]), ["src/agent: 31"]);
});
