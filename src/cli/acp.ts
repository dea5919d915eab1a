/**
 * `llama-agent acp`: the Agent Client Protocol agent on stdio. Stdout carries protocol messages
 * only; progress and logs go to stderr. It runs until the client closes stdin, and answers what
 * it had read by then before it exits (framing and order: `stdio_stream.ts`).
 */
import { COMPAT_FLAG, compatProfileFromFlags } from "./compat_flag.ts";
import { ignoredPluginDirsWarning, PLUGIN_DIR_FLAG, resolvePluginDirs } from "./plugin_dir_flag.ts";
import { resolve } from "node:path";
import { type CliCommand, type CliIo, type CommandSpec, EXIT } from "./command_spec.ts";
import { parseCommandLine, renderHelp } from "./parse_command_line.ts";
import { fail } from "./start_command.ts";
import { createProgressReporter } from "./progress_reporter.ts";
import { modelFileProblem, readableFileProblem, type ReadableRoots } from "./startup_files.ts";
import { createAgentApp } from "../acp/agent_app.ts";
import { DEFAULT_MAX_LINE_BYTES, MAX_LINE_BYTES_LIMIT, stdioStream } from "../acp/stdio_stream.ts";
import { createHandlerRunner } from "../hooks/handler_dispatch.ts";
import { createModelEvaluator } from "../acp/model_evaluator.ts";
import { type AgentConfig, DEFAULT_MAX_TOOL_ROUNDS } from "../acp/agent_config.ts";
import { createModelProvider } from "../acp/model_provider.ts";
import { stopHookBlockCapFromEnv } from "../acp/stop_continuation.ts";
import {
  DEFAULT_PERMISSION_MODE,
  isPermissionModeId,
  PERMISSION_MODE_IDS,
} from "../agent/permission_policy.ts";
import { loadPermissionRules, type PermissionRule } from "../agent/permission_rules.ts";
import { DEFAULT_MODEL_URI } from "../model/default_model.ts";
import {
  modelCacheDir,
  type ModelSource,
  openModel,
  parseModelSource,
} from "../model/model_source.ts";
import { errorMessage } from "../error.ts";
import { MAX_TIMEOUT_MS } from "../hooks/command_runner.ts";
import {
  DEFAULT_MCP_CALL_TIMEOUT_MS,
  DEFAULT_MCP_START_TIMEOUT_MS,
} from "../agent/mcp/mcp_servers.ts";
import { VERSION } from "../version.ts";

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
    "The MCP servers a client passes in session/new (stdio and Streamable HTTP) are started\n" +
    "with the session; their tools are offered as mcp__<server>__<tool>.",
  flags: [
    {
      name: "model",
      type: "string",
      valueName: "PATH|hf:REPO[:FILE]|scripted:FILE",
      description: "The model: a GGUF file, a Hugging Face URI, or a scripted model (JSON turns)",
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
      description: "CPU threads for inference (default: the core count)",
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
    {
      name: "max-tool-rounds",
      type: "string",
      valueName: "N",
      description:
        `Tool rounds per prompt before the turn ends with max_turn_requests (default: ${DEFAULT_MAX_TOOL_ROUNDS})`,
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
  ],
  positionals: [],
  examples: [
    "llama-agent acp --model ./models/qwen2.5-1.5b-instruct-q4_k_m.gguf",
    "llama-agent acp --permission-policy rule-based --rules .llama-agent-rules.json",
  ],
};

/** The number flags with a most they may be, and how a message says it. */
const MAX_TIMEOUT_SECONDS = Math.floor(MAX_TIMEOUT_MS / 1000);
const NUMBER_FLAG_LIMITS: Readonly<
  Record<string, { readonly max: number; readonly said: string }>
> = {
  "mcp-start-timeout": { max: MAX_TIMEOUT_SECONDS, said: `${MAX_TIMEOUT_SECONDS} seconds` },
  "mcp-call-timeout": { max: MAX_TIMEOUT_SECONDS, said: `${MAX_TIMEOUT_SECONDS} seconds` },
  "max-line-bytes": { max: MAX_LINE_BYTES_LIMIT, said: `${MAX_LINE_BYTES_LIMIT}` },
};

async function run(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommandLine(spec, args);
  if (!parsed.ok) return fail(io, parsed.error).exitCode;
  if (parsed.value.help) {
    io.stdout(renderHelp(spec));
    return EXIT.ok;
  }
  const flags = parsed.value.flags;
  const text = (name: string) => (typeof flags[name] === "string" ? flags[name] : undefined);
  const numbers: Record<string, number | undefined> = {};
  for (
    const name of [
      "ctx-size",
      "threads",
      "max-tool-rounds",
      "mcp-start-timeout",
      "mcp-call-timeout",
      "max-line-bytes",
    ]
  ) {
    const value = text(name);
    if (value === undefined) continue;
    if (!/^[1-9][0-9]*$/.test(value)) {
      return fail(io, `--${name} must be a positive integer, got "${value}"`).exitCode;
    }
    const limit = NUMBER_FLAG_LIMITS[name];
    if (limit !== undefined && Number(value) > limit.max) {
      return fail(io, `--${name} must be at most ${limit.said}, got ${value}`).exitCode;
    }
    numbers[name] = Number(value);
  }

  const chosen = compatProfileFromFlags(flags, io);
  if (!chosen.ok) return fail(io, chosen.message).exitCode;
  const pluginDirs = await resolvePluginDirs(parsed.value.lists["plugin-dir"] ?? [], io.cwd);
  if (!pluginDirs.ok) return fail(io, pluginDirs.message).exitCode;

  let source: ModelSource;
  try {
    source = parseModelSource(text("model") ?? DEFAULT_MODEL_URI, io.cwd);
  } catch (error) {
    return fail(io, errorMessage(error)).exitCode;
  }
  const readable: ReadableRoots = {
    launchDir: io.env("LLAMA_AGENT_LAUNCH_DIR") ?? io.cwd,
    home: io.env("HOME"),
  };
  const modelProblem = await modelFileProblem(source, readable);
  if (modelProblem !== undefined) return fail(io, modelProblem).exitCode;

  await io.routeConsoleToStderr();
  const log = (line: string) => io.stderr(`llama-agent: ${line}\n`);
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
  const ignoredPlugins = ignoredPluginDirsWarning(pluginDirs.dirs, chosen.profile);
  if (ignoredPlugins !== null) log(ignoredPlugins);

  const progress = createProgressReporter(io);
  const models = createModelProvider((signal, reportProgress) =>
    openModel(source, {
      signal,
      contextSize: numbers["ctx-size"],
      threads: numbers["threads"],
      gpu: text("gpu") === "off" ? "off" : "auto",
      cacheDir: modelCacheDir(io.env),
      onProgress: (stage, fraction) => {
        progress(stage === "download" ? "Downloading model" : "Loading model", fraction);
        // The editor hides stderr: a prompt waiting for the model shows it too.
        reportProgress(stage, fraction);
      },
      log,
    }).catch((error) => {
      log(errorMessage(error));
      throw error;
    })
  );
  models.warmUp();

  const config: AgentConfig = {
    models,
    launchCwd: io.cwd,
    home: io.env("HOME"),
    env: io.env,
    defaultMode: policy,
    rules,
    maxToolRounds: numbers["max-tool-rounds"] ?? DEFAULT_MAX_TOOL_ROUNDS,
    stopHookBlockCap: stopHookBlockCapFromEnv(io.env, log),
    profile: chosen.profile,
    pluginDirs: pluginDirs.dirs,
    mcp: {
      startTimeoutMs: seconds(numbers["mcp-start-timeout"]),
      callTimeoutMs: seconds(numbers["mcp-call-timeout"]),
    },
    // prompt and agent hooks are answered by the session's own model, in contexts of their own.
    hookRunner: (roots) =>
      createHandlerRunner({
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
  await models.dispose();
  return EXIT.ok;
}

function seconds(value: number | undefined): number | undefined {
  return value === undefined ? undefined : value * 1000;
}

export const acpCommand: CliCommand = { spec, run };
