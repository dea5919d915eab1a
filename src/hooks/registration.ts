/**
 * A registration: one handler of one matcher group of one settings file, ready to fire.
 */
import type { HookEventName } from "./event_table.ts";
import type { HandlerConfig } from "./handler_config.ts";
import type { IfRule } from "./matching/if_rule.ts";
import type { Matcher } from "./matching/matcher.ts";
import type { PluginLocation } from "./plugins/plugin_location.ts";

/** Which file of the chain an entry came from, lowest precedence first. */
export type SettingsScope = "user" | "project" | "local";

/** Where a hook came from: a file of the settings chain, or a plugin's `hooks/hooks.json`. */
export type HookScope = SettingsScope | "plugin";

export interface SourceLocation {
  readonly scope: HookScope;
  /** Set when `scope` is `"plugin"`: the plugin whose `hooks/hooks.json` is `file`. */
  readonly plugin?: PluginLocation;
  readonly file: string;
  /** JSON pointer of the handler, e.g. `/hooks/PreToolUse/0/hooks/1`. */
  readonly pointer: string;
  readonly line: number;
}

export interface Registration {
  /**
   * Stable within one build: `<scope>:<pointer>` for a settings file's hook,
   * `plugin:<plugin id>:<pointer>` for a plugin's (`registration_id.ts`); `hooks list`, `hooks run`
   * and `hooks test --explain` name hooks by it.
   */
  readonly id: string;
  readonly event: HookEventName;
  /** The matcher as written (undefined when omitted). */
  readonly matcherSource: string | undefined;
  readonly matcher: Matcher;
  readonly handler: HandlerConfig;
  /**
   * The handler's `if` rule, parsed; null when it has none (or `""`). Selection tests it after
   * the matcher.
   */
  readonly ifRule: IfRule | null;
  readonly source: SourceLocation;
  /** Position in chain order (user → project → local, then file order): decides ties. */
  readonly order: number;
}
