/**
 * Where llama-agent keeps its state (transcripts, the orphan guard's log): `$XDG_STATE_HOME`, or
 * `$HOME/.local/state` when it is unset, empty or relative. The XDG Base Directory specification
 * says a relative path there is invalid and is to be ignored; taking it as given would put state
 * under whatever directory the agent happens to run in, the project included.
 */
import { isAbsolute } from "node:path";

export function stateHome(env: (name: string) => string | undefined): string | undefined {
  const xdg = env("XDG_STATE_HOME");
  if (xdg && isAbsolute(xdg)) return xdg;
  const home = env("HOME");
  return home ? `${home}/.local/state` : undefined;
}

/** `$HOME/.local/state`, whatever `$XDG_STATE_HOME` says: always inside what the agent may write. */
export function homeStateDir(env: (name: string) => string | undefined): string | undefined {
  const home = env("HOME");
  return home ? `${home}/.local/state` : undefined;
}
