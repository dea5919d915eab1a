/**
 * Where the plugins the settings chain enables live (claude-compat.md §6b), read only from the
 * files Claude Code keeps: nothing is written, installed or run. A plugin of a local
 * (`directory` or `file`) marketplace whose entry is a relative path is read from that path
 * inside the marketplace, as Claude Code reads the live source; any other plugin from the cache
 * copy its install record names. A plugin that cannot be found costs only itself.
 */
import { readConfigFile } from "../../config_file.ts";
import { type Diagnostic, jsonPointer } from "../diagnostic.ts";
import { isRecord } from "../json_value_at.ts";
import { pluginDataDir, type PluginLocation } from "./plugin_location.ts";
import { localSourceRoot } from "./marketplace_source.ts";
import {
  type FoundMarketplace,
  INSTALLED_PLUGINS_VERSION,
  InstalledPluginsFile,
  installedPluginsPath,
  InstallRecord,
  type JsonFileRead,
  KnownMarketplace,
  knownMarketplacesPath,
  marketplaceKind,
  readJsonFile,
  registryFile,
  registryInvalid,
  schemaProblem,
} from "./plugin_registry_files.ts";

/** One `enabledPlugins` entry of the merged settings chain. */
export interface EnabledPlugin {
  /** `"<name>@<marketplace>"` as written in `enabledPlugins`. */
  readonly id: string;
  /** The settings file that said `true`. */
  readonly file: string;
  /** E.g. `"/enabledPlugins/t2plug@t2market"`. */
  readonly pointer: string;
  /** The entry's line in `file`, when the caller knows it. */
  readonly line?: number;
}

export interface InstalledPluginsResult {
  /** Origin `"installed"`, in the order the plugins were given. */
  readonly plugins: readonly PluginLocation[];
  readonly diagnostics: readonly Diagnostic[];
}

export interface FindInstalledPluginsOptions {
  readonly home: string | undefined;
  readonly enabled: readonly EnabledPlugin[];
  /** The session cwd: a `project` or `local` install record applies only to its `projectPath`. */
  readonly cwd?: string;
  /** The settings chain's `extraKnownMarketplaces`, for a marketplace `known_marketplaces.json` lacks. */
  readonly extraKnownMarketplaces?: Readonly<Record<string, unknown>>;
  /** Default `readConfigFile`. */
  readonly readTextFile?: (path: string) => Promise<string>;
}

export async function findInstalledPlugins(
  options: FindInstalledPluginsOptions,
): Promise<InstalledPluginsResult> {
  const diagnostics: Diagnostic[] = [];
  const plugins: PluginLocation[] = [];
  if (options.enabled.length === 0) return { plugins, diagnostics };
  const home = options.home === "" ? undefined : options.home?.replace(/(.)\/+$/, "$1");
  if (home === undefined) {
    for (const plugin of options.enabled) diagnostics.push(noHome(plugin));
    return { plugins, diagnostics };
  }
  const read = options.readTextFile ?? readConfigFile;
  const [installed, known] = await Promise.all([
    readJsonFile(read, installedPluginsPath(home)),
    readJsonFile(read, knownMarketplacesPath(home)),
  ]);
  const marketplaceFiles = new Map<string, Promise<JsonFileRead>>();
  const lookup: Lookup = {
    home,
    cwd: options.cwd?.replace(/(.)\/+$/, "$1"),
    installed,
    known,
    extra: options.extraKnownMarketplaces ?? {},
    marketplaceFile(path) {
      let file = marketplaceFiles.get(path);
      if (file === undefined) marketplaceFiles.set(path, file = readJsonFile(read, path));
      return file;
    },
    report: (d) => diagnostics.push(d),
  };
  for (const plugin of options.enabled) {
    const root = await pluginRoot(plugin, lookup);
    if (root === undefined) continue;
    plugins.push({
      id: plugin.id,
      name: root.name,
      root: root.root,
      dataDir: pluginDataDir(options.home, plugin.id),
      origin: "installed",
    });
  }
  return { plugins, diagnostics };
}

interface Lookup {
  readonly home: string;
  readonly cwd: string | undefined;
  readonly installed: JsonFileRead;
  readonly known: JsonFileRead;
  readonly extra: Readonly<Record<string, unknown>>;
  marketplaceFile(path: string): Promise<JsonFileRead>;
  report(diagnostic: Diagnostic): void;
}

async function pluginRoot(
  plugin: EnabledPlugin,
  lookup: Lookup,
): Promise<{ name: string; root: string } | undefined> {
  const at = plugin.id.lastIndexOf("@");
  if (at <= 0 || at === plugin.id.length - 1) {
    lookup.report(
      atEntry(
        plugin,
        "PLUGIN_ID_INVALID",
        `Plugin "${plugin.id}" in enabledPlugins is not named "<plugin>@<marketplace>", as Claude Code names installed plugins: write it so, or remove it`,
      ),
    );
    return undefined;
  }
  const name = plugin.id.slice(0, at);
  const marketplaceName = plugin.id.slice(at + 1);
  const record = installRecord(plugin, lookup);
  if (record === undefined) return undefined;
  const marketplace = findMarketplace(plugin, marketplaceName, lookup);
  if (marketplace === undefined) return undefined;
  const kind = marketplaceKind(marketplace.entry);
  if (kind.kind === "fetched") return { name, root: record.installPath };
  if (kind.kind === "invalid") {
    lookup.report({
      code: "PLUGIN_REGISTRY_INVALID",
      severity: "error",
      file: marketplace.file,
      pointer: marketplace.pointer,
      message:
        `Cannot load plugin "${plugin.id}" from "${marketplace.file}": marketplace "${marketplace.name}": ${kind.message}; add the marketplace again with Claude Code ("claude plugin marketplace add <dir>")`,
    });
    return undefined;
  }
  const listing = await lookup.marketplaceFile(kind.file);
  const root = await localSourceRoot(plugin, name, kind, marketplace.name, listing, lookup.report);
  if (root === undefined) return undefined;
  // An entry with a fetched source (`url`, `github`, ...) runs from the cache even here.
  return { name, root: root === "cache" ? record.installPath : root };
}

/** The user record, else a project or local one for this cwd; undefined after a diagnostic. */
function installRecord(plugin: EnabledPlugin, lookup: Lookup): InstallRecord | undefined {
  const file = installedPluginsPath(lookup.home);
  const top = registryFile(plugin.id, file, lookup.installed, lookup.report);
  if (top === undefined) return undefined;
  if (top === "missing") {
    lookup.report(notInstalled(plugin, `"${file}" does not exist`));
    return undefined;
  }
  const { value, text } = top;
  const fail = (path: (string | number)[], message: string) => {
    lookup.report(registryInvalid(plugin.id, file, text, path, message));
    return undefined;
  };
  if (isRecord(value) && value.version !== INSTALLED_PLUGINS_VERSION) {
    return fail(
      ["version"],
      `its "version" is ${
        JSON.stringify(value.version) ?? "missing"
      }, but llama-agent reads only version ${INSTALLED_PLUGINS_VERSION} (what Claude Code 2.1 writes); reinstall the plugin with a current Claude Code ("claude plugin install ${plugin.id}")`,
    );
  }
  const parsed = InstalledPluginsFile.safeParse(value);
  if (!parsed.success) {
    const problem = schemaProblem(parsed.error, value);
    return fail(
      problem.path,
      `${problem.message}; reinstall the plugin with Claude Code ("claude plugin install ${plugin.id}")`,
    );
  }
  const records = parsed.data.plugins[plugin.id];
  if (records === undefined) {
    lookup.report(notInstalled(plugin, `no entry for it in "${file}"`));
    return undefined;
  }
  if (!Array.isArray(records)) {
    return fail(
      ["plugins", plugin.id],
      `the entry of "${plugin.id}" must be an array of install records; reinstall the plugin with Claude Code ("claude plugin install ${plugin.id}")`,
    );
  }
  const valid: InstallRecord[] = [];
  records.forEach((raw, i) => {
    const one = InstallRecord.safeParse(raw);
    if (one.success) valid.push(one.data);
    else {
      const problem = schemaProblem(one.error, raw);
      fail(
        ["plugins", plugin.id, i, ...problem.path],
        `install record ${i} of "${plugin.id}": ${problem.message}; reinstall the plugin with Claude Code ("claude plugin install ${plugin.id}")`,
      );
    }
  });
  const user = valid.find((r) => r.scope === "user");
  const here = valid.find((r) =>
    (r.scope === "project" || r.scope === "local") &&
    lookup.cwd !== undefined && r.projectPath?.replace(/(.)\/+$/, "$1") === lookup.cwd
  );
  const chosen = user ?? here;
  if (chosen === undefined && valid.length > 0) {
    const elsewhere = valid.map((r) =>
      r.projectPath === undefined ? `scope "${r.scope}"` : `"${r.projectPath}"`
    );
    lookup.report(
      notInstalled(
        plugin,
        `"${file}" records it only for ${elsewhere.join(", ")}, not for this project`,
        " --scope project",
      ),
    );
  } else if (records.length === 0) {
    lookup.report(notInstalled(plugin, `its entry in "${file}" lists no install record`));
  }
  return chosen;
}

/** The marketplace the id names, from `known_marketplaces.json` else `extraKnownMarketplaces`. */
function findMarketplace(
  plugin: EnabledPlugin,
  name: string,
  lookup: Lookup,
): FoundMarketplace | undefined {
  const file = knownMarketplacesPath(lookup.home);
  let broken = false;
  const report = (diagnostic: Diagnostic) => {
    broken = true;
    lookup.report(diagnostic);
  };
  const top = registryFile(plugin.id, file, lookup.known, report);
  if (top !== undefined && top !== "missing") {
    if (!isRecord(top.value)) {
      report(
        registryInvalid(
          plugin.id,
          file,
          top.text,
          [],
          "it must be a JSON object of marketplaces; remove it and add the marketplaces again with Claude Code",
        ),
      );
    } else if (top.value[name] !== undefined) {
      const entry = top.value[name];
      const parsed = KnownMarketplace.safeParse(entry);
      if (parsed.success) return { name, entry: parsed.data, file, pointer: jsonPointer([name]) };
      const problem = schemaProblem(parsed.error, entry);
      report(
        registryInvalid(
          plugin.id,
          file,
          top.text,
          [name, ...problem.path],
          `marketplace "${name}": ${problem.message}; add the marketplace again with Claude Code ("claude plugin marketplace add <source>")`,
        ),
      );
    }
  }
  const extra = KnownMarketplace.safeParse(lookup.extra[name]);
  if (extra.success) {
    // The merged chain does not say which settings file declared it; the enabling one is near.
    const pointer = jsonPointer(["extraKnownMarketplaces", name]);
    return { name, entry: extra.data, file: plugin.file, pointer };
  }
  // A broken known_marketplaces.json was reported: that is why the marketplace is unknown.
  if (broken) return undefined;
  lookup.report({
    code: "PLUGIN_MARKETPLACE_UNKNOWN",
    severity: "error",
    file,
    pointer: "",
    message:
      `Cannot load plugin "${plugin.id}": its marketplace "${name}" is in neither "${file}" nor extraKnownMarketplaces of the settings; add it with Claude Code ("claude plugin marketplace add <source>") or remove the plugin from enabledPlugins in "${plugin.file}"`,
  });
  return undefined;
}

function notInstalled(plugin: EnabledPlugin, why: string, scopeFlag = ""): Diagnostic {
  return atEntry(
    plugin,
    "PLUGIN_NOT_INSTALLED",
    `Plugin "${plugin.id}" is enabled in "${plugin.file}" but not installed: ${why}; install it with Claude Code ("claude plugin install ${plugin.id}${scopeFlag}") or remove it from enabledPlugins`,
  );
}

function noHome(plugin: EnabledPlugin): Diagnostic {
  return atEntry(
    plugin,
    "PLUGIN_NOT_INSTALLED",
    `Plugin "${plugin.id}" is enabled in "${plugin.file}" but cannot be found: HOME is not set, and Claude Code records installed plugins under $HOME/.claude/plugins; set HOME or remove it from enabledPlugins`,
  );
}

function atEntry(plugin: EnabledPlugin, code: Diagnostic["code"], message: string): Diagnostic {
  return {
    code,
    severity: "error",
    file: plugin.file,
    pointer: plugin.pointer,
    ...(plugin.line === undefined ? {} : { line: plugin.line }),
    message,
  };
}
