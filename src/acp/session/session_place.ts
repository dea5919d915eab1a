/**
 * Where a session may live (acp.md `session/new`): an absolute cwd and additional directories
 * that exist and lie inside the allowed roots, and the roots its tools and agent hooks may touch.
 */
import { isAbsolute } from "node:path";
import type { McpServer } from "@agentclientprotocol/sdk";
import { allowedRoots, confinePath } from "../../os/files/allowed_roots.ts";
import { invalidParams } from "../rpc_error.ts";

export interface SessionPlace {
  readonly cwd: string;
  readonly additionalDirectories?: readonly string[] | null;
  /** Connected when the session is created or brought back (not when it is live already). */
  readonly mcpServers?: readonly McpServer[] | null;
}

export interface CheckedPlace {
  readonly cwd: string;
  readonly additionalDirectories: string[];
  /** Where the session's tools and agent hooks may touch files, for its whole life. */
  readonly roots: readonly string[];
}

/** The place checked; a place that is not usable is an `invalidParams` error saying why. */
export async function checkSessionPlace(
  place: SessionPlace,
  agent: { readonly launchCwd: string; readonly home: string | undefined },
): Promise<CheckedPlace> {
  if (!isAbsolute(place.cwd)) {
    throw invalidParams(`"cwd" must be an absolute path, got "${place.cwd}"`);
  }
  const additionalDirectories = [...(place.additionalDirectories ?? [])];
  for (const dir of additionalDirectories) {
    if (!isAbsolute(dir)) {
      throw invalidParams(`"additionalDirectories" must hold absolute paths, got "${dir}"`);
    }
  }
  const roots = await allowedRoots({ launchCwd: agent.launchCwd, home: agent.home });
  for (const dir of [place.cwd, ...additionalDirectories]) {
    const confined = await confinePath(dir, { cwd: agent.launchCwd, roots });
    if (!confined.ok) {
      throw invalidParams(`Cannot use "${dir}" as a session directory: ${confined.reason}`);
    }
    const info = await Deno.stat(confined.path).catch(() => undefined);
    if (!info?.isDirectory) {
      throw invalidParams(`Cannot use "${dir}" as a session directory: it is not a directory`);
    }
  }
  const sessionRoots = additionalDirectories.length === 0 ? roots : await allowedRoots({
    launchCwd: agent.launchCwd,
    home: agent.home,
    additionalDirectories,
  });
  return { cwd: place.cwd, additionalDirectories, roots: sessionRoots };
}
