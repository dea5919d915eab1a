/**
 * The text `hooks init` reads a command hook by: its command (and args), then every script it
 * runs from the project (`hookScripts`, the scripts a watch reruns a scenario for). Only regular
 * files of at most 256 KiB are read (a FIFO or a huge file is left alone); a script that cannot
 * be read adds nothing.
 */
import { readConfigFile } from "../../config_file.ts";
import type { HandlerConfig } from "../../hooks/handler_config.ts";
import { hookScripts } from "../watch/watch_inputs.ts";

const SCRIPT_MAX_BYTES = 256 * 1024;

export async function hookText(handler: HandlerConfig, projectDir: string): Promise<string> {
  if (handler.type !== "command") return handler.type === "http" ? handler.url : handler.prompt;
  const command = [handler.command, ...(handler.args ?? [])].join(" ");
  const scripts = await Promise.all(
    hookScripts(handler, projectDir).map((path) =>
      readConfigFile(path, { maxBytes: SCRIPT_MAX_BYTES }).catch(() => "")
    ),
  );
  return [command, ...scripts].join("\n");
}
