/**
 * The environment of every program the tests start (with `clearEnv: true`): this PATH, a HOME of
 * the test's own, a UTF-8 locale, UTC and no colours, so that nothing of the machine's leaks in.
 * LLAMA_AGENT_SPAWN goes through: the suite run with it set to "setsid" tests the fallback spawn
 * path in the agents it starts too.
 */
export function pinnedEnv(
  home: string,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: home,
    LANG: "C.UTF-8",
    TZ: "UTC",
    NO_COLOR: "1",
    ...spawnSetting(),
    ...extra,
  };
}

function spawnSetting(): Record<string, string> {
  const setting = Deno.env.get("LLAMA_AGENT_SPAWN");
  return setting === undefined ? {} : { LLAMA_AGENT_SPAWN: setting };
}
