/**
 * Where llama-agent keeps its state (transcripts, the orphan guard's log): `$XDG_STATE_HOME`, or
 * `$HOME/.local/state` when it is unset, empty or relative. The XDG Base Directory specification
 * says a relative path there is invalid and is to be ignored; taking it as given would put state
 * under whatever directory the agent happens to run in, the project included.
 */

export function stateHome(env: (name: string) => string | undefined): string | undefined {
  const xdg = env("XDG_STATE_HOME");
  return xdg && isAbsolute(xdg) ? xdg : homeStateDir(env);
}

/** `$HOME/.local/state`, whatever `$XDG_STATE_HOME` says: always inside what the agent may write. */
export function homeStateDir(env: (name: string) => string | undefined): string | undefined {
  const home = env("HOME");
  return home ? `${home}/.local/state` : undefined;
}

// node:path's rule (a separator, or on Windows also a drive and a separator, first), without
// loading node:path: main.ts needs the state home before every command, `--version` included,
// and the first node: module costs about 15 ms of start-up.
const ABSOLUTE = Deno.build.os === "windows" ? /^(?:[A-Za-z]:)?[\\/]/ : /^\//;

function isAbsolute(path: string): boolean {
  return ABSOLUTE.test(path);
}
