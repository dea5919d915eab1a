/**
 * The hooks of one directory: its settings chain read once, and the registry built from it.
 * Sessions, `hooks list|lint|run` and `hooks test` all start here.
 */
import { buildRegistry, type Registry } from "./registry.ts";
import type { EventProfile } from "./event_table.ts";
import { type LoadedSettings, loadSettingsChain, type ReadTextFile } from "./settings_chain.ts";

export interface SessionHooks {
  readonly loaded: LoadedSettings;
  readonly registry: Registry;
}

export interface SessionHooksOptions {
  readonly readTextFile?: ReadTextFile;
  /** Which events register: a profile's `extraEvents` (default: the source document's). */
  readonly profile?: EventProfile;
}

export async function loadSessionHooks(
  cwd: string,
  home: string | undefined,
  options: SessionHooksOptions = {},
): Promise<SessionHooks> {
  const loaded = await loadSettingsChain({ cwd, home, ...options });
  return { loaded, registry: buildRegistry(loaded) };
}
