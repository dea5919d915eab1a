/**
 * The id a hook is named by in `hooks list`, `hooks run` and `hooks test` (`matched`, `--explain`):
 * `<scope>:<pointer>` for a settings file's, `plugin:<plugin id>:<pointer>` for a plugin's, so
 * two plugins' hooks at the same pointer stay apart. Registered or not, a hook has the same id.
 */
import type { SourceLocation } from "./registration.ts";

export function registrationId(source: SourceLocation): string {
  const scope = source.plugin === undefined ? source.scope : `plugin:${source.plugin.id}`;
  return `${scope}:${source.pointer}`;
}
