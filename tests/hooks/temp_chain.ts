/**
 * Settings chains written as real files: a temp dir with a HOME and a project cwd, removed after
 * the test, plus small builders for settings text.
 */
import { type LoadedSettings, loadSettingsChain } from "../../src/hooks/settings/settings_chain.ts";

export interface Chain {
  readonly user?: string;
  readonly project?: string;
  readonly local?: string;
}

export interface TempChain {
  readonly home: string;
  readonly cwd: string;
  readonly userFile: string;
  readonly projectFile: string;
  readonly localFile: string;
}

/** Writes the given files of a chain into a fresh temp dir, runs `fn`, and removes the dir. */
export async function withChain<T>(chain: Chain, fn: (dirs: TempChain) => Promise<T>): Promise<T> {
  const root = await Deno.makeTempDir({ prefix: "settings_chain_test_" });
  try {
    const home = `${root}/home`;
    const cwd = `${root}/project`;
    await Deno.mkdir(home);
    await Deno.mkdir(cwd);
    const dirs = {
      home,
      cwd,
      userFile: `${home}/.claude/settings.json`,
      projectFile: `${cwd}/.claude/settings.json`,
      localFile: `${cwd}/.claude/settings.local.json`,
    };
    const write = async (path: string, text: string | undefined) => {
      if (text === undefined) return;
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(path, text);
    };
    await write(dirs.userFile, chain.user);
    await write(dirs.projectFile, chain.project);
    await write(dirs.localFile, chain.local);
    return await fn(dirs);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

export function load(dirs: TempChain): Promise<LoadedSettings> {
  return loadSettingsChain({ cwd: dirs.cwd, home: dirs.home });
}

export function hooksFile(
  hooks: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify({ ...extra, hooks }, null, 2);
}

export function commandGroup(command: string, matcher?: string) {
  return { ...(matcher === undefined ? {} : { matcher }), hooks: [{ type: "command", command }] };
}

export function commands(loaded: LoadedSettings): string[] {
  return loaded.handlers.map(({ handler }) => handler.type === "command" ? handler.command : "?");
}

export function lineOf(text: string, needle: string): number {
  const index = text.indexOf(needle);
  if (index < 0) throw new Error(`"${needle}" is not in the file`);
  return text.slice(0, index).split("\n").length;
}
