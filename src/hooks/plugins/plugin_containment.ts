/**
 * A plugin's paths stay inside the directory they belong to once every symlink in them is
 * followed: a local marketplace's plugin `source` inside the marketplace, its listing
 * (`.claude-plugin/marketplace.json`) too, and a plugin's `hooks/hooks.json` and
 * `.claude-plugin/plugin.json` inside the plugin. A marketplace or a plugin is often a checkout
 * of someone else's repository, and git keeps symlinks: `"source": "./plugins/x"` with `x` a
 * link to `~/elsewhere` would run hooks the marketplace does not hold, as `"../elsewhere"` would,
 * and that is refused by its text.
 *
 * The check is made when the files are read, by path: a link made in their place afterwards
 * (someone who can already write the plugin, and so its hooks) is not seen.
 */
import { isInsideDir, realPathAllowingMissing } from "../../real_path.ts";

export type Containment =
  /** `path` with every symlink followed (a missing tail kept as written). */
  | { readonly kind: "inside"; readonly path: string }
  /** `resolved` is where `path` leads, outside `dir`, which resolves to `dirResolved`. */
  | { readonly kind: "outside"; readonly resolved: string; readonly dirResolved: string }
  /** A link loop, or a directory that cannot be looked into: `reason` completes a sentence. */
  | { readonly kind: "unresolved"; readonly reason: string };

/** Where the absolute `path` leads, and whether that is inside `dir` (`dir` itself included). */
export async function containmentOf(dir: string, path: string): Promise<Containment> {
  const [base, full] = await Promise.all([
    realPathAllowingMissing(dir),
    realPathAllowingMissing(path),
  ]);
  if (!base.ok) return { kind: "unresolved", reason: base.reason };
  if (!full.ok) return { kind: "unresolved", reason: full.reason };
  return isInsideDir(full.path, base.path)
    ? { kind: "inside", path: full.path }
    : { kind: "outside", resolved: full.path, dirResolved: base.path };
}

/** `it leads to "<resolved>", outside "<dir>"`, naming the real dir too when it differs. */
export function outsideWords(dir: string, outside: { resolved: string; dirResolved: string }) {
  const real = outside.dirResolved === dir ? "" : ` (really "${outside.dirResolved}")`;
  return `it leads through a symlink to "${outside.resolved}", outside "${dir}"${real}`;
}
