/**
 * The environment of every program the tests start (with `clearEnv: true`): this PATH, a HOME of
 * the test's own, a UTF-8 locale, UTC and no colours, so that nothing of the machine's leaks in.
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
    ...extra,
  };
}
