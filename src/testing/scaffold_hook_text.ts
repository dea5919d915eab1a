/**
 * The text `hooks init` reads a command hook by: its command (and args), then every script it
 * runs from the project, named through `$CLAUDE_PROJECT_DIR` or by a relative path. Only
 * regular files of at most 256 KiB are read (a FIFO or a huge file is left alone); a script
 * that cannot be read adds nothing.
 */
import { readConfigFile } from "../config_file.ts";
import type { HandlerConfig } from "../hooks/handler_config.ts";
import { scriptReferences } from "../hooks/script_path_lint.ts";

const SCRIPT_MAX_BYTES = 256 * 1024;
/** A relative script path in a command: `./hooks/guard.sh`, `.claude/hooks/x.py`. */
const RELATIVE_SCRIPT =
  /(?<![\w$}"'/])\.{0,2}[\w.-]*\/[\w.\/-]+\.(sh|bash|py|js|mjs|cjs|ts|rb|pl|php)\b/g;

export async function hookText(handler: HandlerConfig, projectDir: string): Promise<string> {
  if (handler.type !== "command") return handler.type === "http" ? handler.url : handler.prompt;
  const command = [handler.command, ...(handler.args ?? [])].join(" ");
  const dir = projectDir.replace(/\/+$/, "");
  const paths = new Set([
    ...scriptReferences(handler).map((reference) => dir + reference.rest),
    ...[...command.matchAll(RELATIVE_SCRIPT)].map((m) => `${dir}/${m[0].replace(/^\.\//, "")}`),
  ]);
  const scripts = await Promise.all(
    [...paths].map((path) => readConfigFile(path, { maxBytes: SCRIPT_MAX_BYTES }).catch(() => "")),
  );
  return [command, ...scripts].join("\n");
}
