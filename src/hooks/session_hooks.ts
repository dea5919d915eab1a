/**
 * The hooks of one directory: its settings chain read once, and the registry built from it.
 * Sessions, `hooks list|lint|run` and `hooks test` all start here.
 */
import { buildRegistry, type Registry } from "./registry.ts";
import { type LoadedSettings, loadSettingsChain, type ReadTextFile } from "./settings_chain.ts";

export interface SessionHooks {
  readonly loaded: LoadedSettings;
  readonly registry: Registry;
}

export async function loadSessionHooks(
  cwd: string,
  home: string | undefined,
  readTextFile?: ReadTextFile,
): Promise<SessionHooks> {
  const loaded = await loadSettingsChain({ cwd, home, readTextFile });
  return { loaded, registry: buildRegistry(loaded) };
}
