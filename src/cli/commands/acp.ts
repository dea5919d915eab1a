/**
 * `llama-agent acp`: the Agent Client Protocol agent on stdio. Stdout carries protocol messages
 * only; progress and logs go to stderr. It runs until the client closes stdin, and answers what
 * it had read by then before it exits (framing and order: `stdio_stream.ts`).
 */
import { COMPAT_FLAG, compatProfileFromFlags } from "../options/compat_flag.ts";
import {
  ignoredPluginDirsWarning,
  PLUGIN_DIR_FLAG,
  resolvePluginDirs,
} from "../options/plugin_dir_flag.ts";
import { resolve } from "node:path";
import { type CliCommand, type CliIo, type CommandSpec, EXIT } from "../command_spec.ts";
import { parseCommandLine, renderHelp } from "../parse_command_line.ts";
import { fail } from "../start_command.ts";
import { createProgressReporter } from "../progress_reporter.ts";
import { readableFileProblem, readableRootsOf } from "../options/startup_files.ts";
import {
  modelFlagsOf,
  modelLoaderOf,
  modelSetupOf,
  unusedWithEndpoint,
} from "../options/acp_model_flags.ts";
import { acpModelCatalog } from "../options/acp_model_catalog.ts";
import { createAgentApp } from "../../acp/agent_app.ts";
import { childEnvironment } from "../../acp/child_environment.ts";
import {
  DEFAULT_MAX_LINE_BYTES,
  MAX_LINE_BYTES_LIMIT,
  stdioStream,
} from "../../acp/stdio/stdio_stream.ts";
import { createHandlerRunner } from "../../hooks/handlers/handler_dispatch.ts";
import { createModelEvaluator } from "../../acp/model_evaluator.ts";
import { type AgentConfig, DEFAULT_MAX_TOOL_ROUNDS } from "../../acp/agent_config.ts";
import {
  DEFAULT_COMPACT_THRESHOLD,
  DEFAULT_TOOL_OUTPUT_SHARE,
} from "../../acp/compaction/context_budget.ts";
import { createModelProvider } from "../../acp/model_provider.ts";
import { stopHookBlockCapFromEnv } from "../../acp/turn/stop_continuation.ts";
import {
  STOP_HOOKS_CONTINUE_DEFAULT_WORDS,
  STOP_HOOKS_CONTINUE_FLAG,
} from "../options/stop_hooks_continue_flag.ts";
import {
  DEFAULT_PERMISSION_MODE,
  isPermissionModeId,
  PERMISSION_MODE_IDS,
} from "../../agent/permissions/permission_policy.ts";
import {
  loadPermissionRules,
  type PermissionRule,
} from "../../agent/permissions/permission_rules.ts";
import { DEFAULT_MODEL_URI } from "../../model/default_model.ts";
import { MIN_ANSWER_TOKENS } from "../../model/answer_cap.ts";
import { MAX_TIMEOUT_MS } from "../../os/process/command_runner.ts";
import {
  DEFAULT_MCP_CALL_TIMEOUT_MS,
  DEFAULT_MCP_START_TIMEOUT_MS,
} from "../../agent/mcp/mcp_servers.ts";
import { VERSION } from "../../version.ts";
import { loadAcpSettings, settingPlace } from "../options/acp_settings.ts";
import { PRINT_CONFIG_FLAG, renderConfig } from "../options/print_config.ts";
import { type IntegerLimit, settingSpecs } from "../options/setting_spec.ts";
import { DEFAULT_COMPAT_CHOICE } from "../../profile/compat_profile.ts";
import { loadProfileChoice } from "../../hooks/profile_choice.ts";
import { describeDecision } from "../../hooks/profile_decision.ts";

const HOOK_KILL_GRACE_MS = 250;

const spec: CommandSpec = {
  path: ["acp"],
  summary: "run the ACP agent on stdio (for editors such as Zed)",
  description:
    "Speaks the Agent Client Protocol (JSON-RPC, one message per line) on stdin/stdout.\n" +
    "A line longer than --max-line-bytes is discarded and answered with a -32600 error.\n" +
    "Requests are handled in the order they arrive: none starts before initialize is answered,\n" +
    "and none for a session before its session/load or session/resume is answered.\n" +
    "When stdin ends, every request already read is answered (a running prompt is cancelled)\n" +
    "before the agent exits.\n" +
    "Without --model, a small instruct model is fetched once into the user's cache:\n" +
    `  ${DEFAULT_MODEL_URI}\n` +
    "Offline, pass --model PATH to a local GGUF file.\n" +
    "With --endpoint URL, the model runs on an OpenAI-compatible server instead (llama-server,\n" +
    "Ollama, LM Studio, vLLM): --model names one of its models, and the API key, if any, is\n" +
    "read from the variable --api-key-env names.\n" +
    "The MCP servers a client passes in session/new (stdio and Streamable HTTP) are started\n" +
    "with the session; their tools are offered as mcp__<server>__<tool>.\n" +
    "A flag wins over its variable (--ctx-size: LLAMA_AGENT_CTX_SIZE), which wins over the user's\n" +
    "config file, ~/.config/llama-agent/config.json or $XDG_CONFIG_HOME/llama-agent/config.json\n" +
    '(JSONC; keys in camelCase: "ctxSize"). --print-config shows each value and where it is from.',
  flags: [
    {
      name: "model",
      type: "string",
      valueName: "PATH|hf:REPO[:FILE]|scripted:FILE|NAME",
      description:
        "The model: a GGUF file, a Hugging Face URI, or a scripted model (JSON turns); with --endpoint, the server's model id (default: the first it lists)",
    },
    {
      name: "endpoint",
      type: "string",
      valueName: "URL",
      description:
        "An OpenAI-compatible server's base URL (e.g. http://localhost:11434/v1) to use instead of a model in this process",
    },
    {
      name: "api-key-env",
      type: "string",
      valueName: "VAR",
      description:
        "The environment variable that holds the endpoint's API key (the key itself is never a flag)",
    },
    {
      name: "ctx-size",
      type: "string",
      valueName: "N",
      description: "Context size in tokens (default: the model's, capped to fit memory)",
    },
    {
      name: "threads",
      type: "string",
      valueName: "N",
      description: "CPU threads for inference (default: the physical cores llama.cpp counts)",
    },
    {
      name: "gpu",
      type: "string",
      valueName: "MODE",
      choices: ["auto", "off"],
      description: "Use a GPU when one is usable (default: auto)",
    },
    COMPAT_FLAG,
    PLUGIN_DIR_FLAG,
    {
      name: "permission-policy",
      type: "string",
      valueName: "MODE",
      choices: PERMISSION_MODE_IDS,
      description:
        `Which tool calls run without asking (default: ${DEFAULT_PERMISSION_MODE}; rule-based with --rules)`,
    },
    {
      name: "rules",
      type: "string",
      valueName: "FILE",
      description: "Permission rules (JSON) for the rule-based policy",
    },
    STOP_HOOKS_CONTINUE_FLAG,
    {
      name: "max-tool-rounds",
      type: "string",
      valueName: "N",
      description:
        `Tool rounds per prompt before the turn ends with max_turn_requests (default: ${DEFAULT_MAX_TOOL_ROUNDS})`,
    },
    {
      name: "compact-threshold",
      type: "string",
      valueName: "SHARE",
      description:
        `Compact the conversation before a request passes this share (0.8 or 80%) of the context (default: ${DEFAULT_COMPACT_THRESHOLD}); lower: compacts sooner, each compaction costs one model request; higher: fewer compactions, less room for the answer`,
    },
    {
      name: "tool-output-share",
      type: "string",
      valueName: "SHARE",
      description:
        `The most one tool result may take of the context's free tokens (default: ${DEFAULT_TOOL_OUTPUT_SHARE}); lower: results cut shorter, more calls to read the rest; higher: fewer calls, the context fills and compacts sooner`,
    },
    {
      name: "max-answer-tokens",
      type: "string",
      valueName: "N",
      description:
        `The most tokens one answer may take, at most half the context (default: a quarter of the context, at least ${MIN_ANSWER_TOKENS}); lower: a rambling or looping answer ends sooner, a long one is cut; higher: longer answers, less room for the conversation`,
    },
    {
      name: "mcp-start-timeout",
      type: "string",
      valueName: "SECONDS",
      description: `How long an MCP server may take to start and list its tools (default: ${
        DEFAULT_MCP_START_TIMEOUT_MS / 1000
      })`,
    },
    {
      name: "mcp-call-timeout",
      type: "string",
      valueName: "SECONDS",
      description: `How long one MCP tool call may take (default: ${
        DEFAULT_MCP_CALL_TIMEOUT_MS / 1000
      })`,
    },
    {
      name: "max-line-bytes",
      type: "string",
      valueName: "N",
      description:
        `Longest stdin line (one message) in bytes, at most ${MAX_LINE_BYTES_LIMIT} (default: ${DEFAULT_MAX_LINE_BYTES}, 32 MiB)`,
    },
    PRINT_CONFIG_FLAG,
  ],
  positionals: [],
  examples: [
    "llama-agent acp --model ./models/qwen2.5-1.5b-instruct-q4_k_m.gguf",
    "llama-agent acp --endpoint http://localhost:11434/v1 --model qwen3:8b",
    "llama-agent acp --endpoint https://models.example.com/v1 --api-key-env MODELS_API_KEY",
    "llama-agent acp --permission-policy rule-based --rules .llama-agent-rules.json",
    "llama-agent acp --print-config   # each setting, and the flag, variable or file it came from",
  ],
};

/** The number flags, with the most each may be (null: no limit). */
const MAX_TIMEOUT_SECONDS = Math.floor(MAX_TIMEOUT_MS / 1000);
const INTEGER_SETTINGS: Readonly<Record<string, IntegerLimit | null>> = {
  "ctx-size": null,
  threads: null,
  "max-tool-rounds": null,
  "max-answer-tokens": null,
  "mcp-start-timeout": { max: MAX_TIMEOUT_SECONDS, said: `${MAX_TIMEOUT_SECONDS} seconds` },
  "mcp-call-timeout": { max: MAX_TIMEOUT_SECONDS, said: `${MAX_TIMEOUT_SECONDS} seconds` },
  "max-line-bytes": { max: MAX_LINE_BYTES_LIMIT, said: `${MAX_LINE_BYTES_LIMIT}` },
};
/** The flags whose value is a share of the context. */
const SHARE_SETTINGS = ["compact-threshold", "tool-output-share"];
/** Every flag but --print-config may also come from the environment or the config file. */
const SETTINGS = settingSpecs(
  spec.flags.filter((f) => f !== PRINT_CONFIG_FLAG),
  INTEGER_SETTINGS,
  SHARE_SETTINGS,
);

async function run(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommandLine(spec, args);
  if (!parsed.ok) return fail(io, parsed.error).exitCode;
  if (parsed.value.help) {
    io.stdout(renderHelp(spec));
    return EXIT.ok;
  }
  const loaded = await loadAcpSettings(SETTINGS, parsed.value, io);
  if (!loaded.ok) return fail(io, loaded.message).exitCode;
  const { flags, lists, numbers } = loaded.settings;
  const text = (name: string) => (typeof flags[name] === "string" ? flags[name] : undefined);
  const chosen = compatProfileFromFlags(flags, io);
  if (!chosen.ok) return fail(io, chosen.message).exitCode;
  const compatOrigin = settingPlace(loaded.settings, "compat");
  const pluginDirs = await resolvePluginDirs(lists["plugin-dir"] ?? [], io.cwd);
  if (parsed.value.flags["print-config"] === true) {
    const model = text("endpoint") === undefined ? DEFAULT_MODEL_URI : undefined;
    // What a session in the launch directory would get (each session decides in its own).
    const { decision } = await loadProfileChoice(chosen.setting, io.cwd, io.env("HOME"), {
      pluginDirs: pluginDirs.ok ? pluginDirs.dirs : [],
      origin: compatOrigin,
    });
    io.stdout(
      renderConfig(loaded.settings, {
        env: io.env,
        defaults: {
          model,
          compat: DEFAULT_COMPAT_CHOICE,
          "stop-hooks-continue": STOP_HOOKS_CONTINUE_DEFAULT_WORDS,
        },
      }) + `Profile of a session in "${io.cwd}": ${describeDecision(decision)}\n`,
    );
    return EXIT.ok;
  }
  if (!pluginDirs.ok) return fail(io, pluginDirs.message).exitCode;

  const readable = readableRootsOf(io);
  const modelFlags = modelFlagsOf(text, numbers, {
    endpoint: settingPlace(loaded.settings, "endpoint"),
    apiKeyEnv: settingPlace(loaded.settings, "api-key-env"),
  });
  const modelSetup = await modelSetupOf(modelFlags, io, readable);
  if (!modelSetup.ok) return fail(io, modelSetup.message).exitCode;

  await io.routeConsoleToStderr();
  const log = (line: string) => io.stderr(`llama-agent: ${line}\n`);
  if (loaded.settings.file.unreadable !== undefined) log(loaded.settings.file.unreadable);
  let rules: readonly PermissionRule[] = [];
  const rulesFlag = text("rules");
  if (rulesFlag !== undefined) {
    const rulesPath = resolve(io.cwd, rulesFlag);
    const unreadable = await readableFileProblem(
      `Cannot load permission rules from "${rulesPath}" (--rules)`,
      rulesPath,
      readable,
    );
    if (unreadable !== undefined) return fail(io, unreadable).exitCode;
    const loaded = await loadPermissionRules(rulesPath);
    if (!loaded.ok) return fail(io, loaded.errors.join("\n")).exitCode;
    rules = loaded.rules;
  }
  const policy = text("permission-policy") ??
    (rulesFlag !== undefined ? "rule-based" : DEFAULT_PERMISSION_MODE);
  if (!isPermissionModeId(policy)) {
    return fail(io, `Unknown permission policy "${policy}"`).exitCode;
  }
  if (policy === "rule-based" && rulesFlag === undefined) {
    log("--permission-policy rule-based without --rules: every tool call will ask");
  }
  // Under `auto` each session decides; a forced profile without plugins ignores them at once.
  if (chosen.setting !== "auto") {
    const ignoredPlugins = ignoredPluginDirsWarning(pluginDirs.dirs, chosen.setting);
    if (ignoredPlugins !== null) log(ignoredPlugins);
  }

  const progress = createProgressReporter(io);
  for (const flag of unusedWithEndpoint(modelFlags)) {
    log(`${flag} is for a model in this process; the server at --endpoint decides its own`);
  }
  // The key is the agent's: what it starts for others (hooks, commands, MCP servers) lacks it.
  const childEnv = childEnvironment(
    modelSetup.setup.kind === "endpoint" && modelFlags.apiKeyEnv !== undefined
      ? [modelFlags.apiKeyEnv]
      : [],
  );
  const loaderDeps = { env: io.env, progress, log };
  const models = createModelProvider(modelLoaderOf(modelSetup.setup, modelFlags, loaderDeps));
  models.warmUp();
  const modelCatalog = acpModelCatalog(modelSetup.setup, modelFlags, models, loaderDeps);

  const config: AgentConfig = {
    models,
    modelCatalog,
    launchCwd: io.cwd,
    home: io.env("HOME"),
    env: io.env,
    defaultMode: policy,
    rules,
    maxToolRounds: numbers["max-tool-rounds"] ?? DEFAULT_MAX_TOOL_ROUNDS,
    contextBudget: {
      compactThreshold: numbers["compact-threshold"] ?? DEFAULT_COMPACT_THRESHOLD,
      toolOutputShare: numbers["tool-output-share"] ?? DEFAULT_TOOL_OUTPUT_SHARE,
      maxAnswerTokens: numbers["max-answer-tokens"],
    },
    stopHookBlockCap: stopHookBlockCapFromEnv(io.env, log),
    stopHooksContinue: typeof flags["stop-hooks-continue"] === "boolean"
      ? flags["stop-hooks-continue"]
      : undefined,
    profile: chosen.setting,
    profileOrigin: compatOrigin,
    pluginDirs: pluginDirs.dirs,
    mcp: {
      startTimeoutMs: seconds(numbers["mcp-start-timeout"]),
      callTimeoutMs: seconds(numbers["mcp-call-timeout"]),
    },
    shellEnv: childEnv,
    // prompt and agent hooks are answered by the model the agent started with (whatever model a
    // session switched to), in contexts of their own.
    hookRunner: (roots) =>
      createHandlerRunner({
        ...(childEnv === undefined ? {} : { baseEnv: childEnv }),
        evaluator: createModelEvaluator({ models, roots, log }),
        // A cancel answers once the hooks' groups are gone; as for the shell tool, a quarter
        // second between SIGTERM and SIGKILL keeps that within what an editor waits for.
        killGraceMs: HOOK_KILL_GRACE_MS,
      }),
    version: VERSION,
    log,
  };
  const agent = createAgentApp(config);
  const connection = agent.app.connect(
    stdioStream(io.stdoutStream(), io.stdinStream(), {
      maxLineBytes: numbers["max-line-bytes"],
      log,
    }),
  );
  const stopListening = io.onTermination(() => connection.close());
  await connection.closed;
  stopListening();
  await agent.shutdown();
  await modelCatalog.dispose();
  await models.dispose();
  return EXIT.ok;
}

function seconds(value: number | undefined): number | undefined {
  return value === undefined ? undefined : value * 1000;
}

export const acpCommand: CliCommand = { spec, run };
