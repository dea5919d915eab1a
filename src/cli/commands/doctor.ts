/**
 * `llama-agent doctor`: whether a model will drive the agent's tools, before an editor finds out.
 * It opens the model as `acp` would (in this process, or on an OpenAI-compatible server), asks it
 * a handful of prompts that each need one tool, and gives a verdict with its reasons
 * (src/doctor/). Progress goes to stderr, the report to stdout (`--json` for scripts).
 *
 * Exit codes: 0 ready; 1 limited or unsuitable, or the check could not run (the model did not
 * load, the server did not answer); 2 a usage error.
 */
import { type CliCommand, type CliIo, type CommandSpec, EXIT } from "../command_spec.ts";
import { COMPAT_FLAG, compatProfileFromFlags } from "../options/compat_flag.ts";
import { parseCommandLine, renderHelp } from "../parse_command_line.ts";
import { fail } from "../start_command.ts";
import { createProgressReporter } from "../progress_reporter.ts";
import { readableRootsOf } from "../options/startup_files.ts";
import {
  type ModelFlags,
  modelFlagsOf,
  type ModelSetup,
  modelSetupOf,
  unusedWithEndpoint,
} from "../options/acp_model_flags.ts";
import { createToolKit } from "../../agent/tools/tool_kits.ts";
import { errorMessage } from "../../error.ts";
import type { ChatFormat } from "../../model/chat_format.ts";
import type { Model } from "../../model/model.ts";
import { modelCacheDir, openModel } from "../../model/model_source.ts";
import type { CompatProfile } from "../../profile/compat_profile.ts";
import { loadProfileChoice } from "../../hooks/profile_choice.ts";
import { READY_CALL_SHARE } from "../../doctor/fitness_verdict.ts";
import { PROBE_TASKS } from "../../doctor/probe_tasks.ts";
import {
  checkModelFitness,
  type FitnessCheckOptions,
  type FitnessReport,
  PROBE_ANSWER_TOKENS,
} from "../../doctor/model_fitness.ts";
import { renderFitnessReport } from "../../doctor/fitness_report_text.ts";

const spec: CommandSpec = {
  path: ["doctor"],
  summary: "check whether a model can drive the agent's tools, and what to try if not",
  description: 'Opens the model as "acp" would and reports:\n' +
    "- the chat template (in this process): whether the model writes tool calls in its own\n" +
    "  syntax, or node-llama-cpp's generic one, which small models seldom use;\n" +
    "- for a server: whether it uses the tools a request sends (llama-cpp-python's default\n" +
    "  chat format and llama-server with a template without tools drop them) and whether it\n" +
    "  says its context;\n" +
    "- the context, and what the fixed prompt (system prompt and tool definitions) takes of it;\n" +
    `- a probe: ${PROBE_TASKS.length} prompts that each need one tool, answered once each (at most ` +
    `${PROBE_ANSWER_TOKENS} tokens,\n` +
    "  no tool run): how many got a valid, relevant call, repaired as a turn repairs calls.\n" +
    `  The tasks: ${PROBE_TASKS.map((task) => task.label).join(", ")}.\n` +
    "Then a verdict: ready; limited (fewer than " +
    `${Math.round(READY_CALL_SHARE * 100)} % of the prompts got a valid call, or the fixed\n` +
    "prompt takes over half the context); unsuitable (no valid call, tools dropped or refused,\n" +
    "or no room for one answer), with the reasons and what to try instead.\n" +
    "Exits 0 when ready; 1 when limited or unsuitable, or when the check could not run.",
  flags: [
    {
      name: "model",
      type: "string",
      valueName: "PATH|hf:REPO[:FILE]|NAME",
      description:
        "The model: a GGUF file or a Hugging Face URI; with --endpoint, the server's model id (default: the first it lists)",
    },
    {
      name: "endpoint",
      type: "string",
      valueName: "URL",
      description: "An OpenAI-compatible server's base URL (e.g. http://localhost:8080/v1)",
    },
    {
      name: "api-key-env",
      type: "string",
      valueName: "VAR",
      description: "The environment variable that holds the endpoint's API key",
    },
    {
      name: "ctx-size",
      type: "string",
      valueName: "N",
      description: "Context size in tokens, as you would pass it to acp",
    },
    {
      name: "threads",
      type: "string",
      valueName: "N",
      description: "CPU threads for a model in this process, as you would pass them to acp",
    },
    {
      name: "gpu",
      type: "string",
      valueName: "MODE",
      choices: ["auto", "off"],
      description: "Use a GPU for a model in this process when one is usable (default: auto)",
    },
    COMPAT_FLAG,
    { name: "json", type: "boolean", description: "Print the report as JSON" },
  ],
  positionals: [],
  examples: [
    "llama-agent doctor --model ./models/qwen2.5-7b-instruct-q4_k_m.gguf",
    "llama-agent doctor --endpoint http://localhost:8080/v1",
    "llama-agent doctor --endpoint http://localhost:11434/v1 --model qwen3:8b --compat claude",
    "llama-agent doctor --model ./smollm2-135m-instruct.gguf --json | jq .verdict",
  ],
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
  if (text("model") === undefined && text("endpoint") === undefined) {
    return fail(
      io,
      'Name the model to check: --model PATH|hf:OWNER/REPO[:FILE], or --endpoint URL (run "llama-agent doctor --help" for usage)',
    ).exitCode;
  }
  const numbers: Record<string, number | undefined> = {};
  for (const name of ["ctx-size", "threads"]) {
    const value = text(name);
    if (value !== undefined && !/^[1-9][0-9]*$/.test(value)) {
      return fail(io, `--${name} must be a positive integer, got ${JSON.stringify(value)}`)
        .exitCode;
    }
    numbers[name] = value === undefined ? undefined : Number(value);
  }
  const chosen = compatProfileFromFlags(flags, io);
  if (!chosen.ok) return fail(io, chosen.message).exitCode;
  const modelFlags = modelFlagsOf(text, numbers);
  const readable = readableRootsOf(io);
  const setup = await modelSetupOf(modelFlags, io, readable);
  if (!setup.ok) return fail(io, setup.message).exitCode;
  // The tools probed are those a session in the launch directory would be offered.
  const { decision } = await loadProfileChoice(chosen.setting, io.cwd, io.env("HOME"), {
    origin: chosen.origin,
  });
  for (const flag of unusedWithEndpoint(modelFlags)) {
    io.stderr(`${flag} is for a model in this process; the server at --endpoint decides its own\n`);
  }

  // The report is stdout; whatever node-llama-cpp prints goes to stderr.
  await io.routeConsoleToStderr();
  const controller = new AbortController();
  const stopListening = io.onTermination(() => controller.abort());
  try {
    const report = await diagnose(setup.setup, modelFlags, decision.profile, io, controller.signal);
    if (controller.signal.aborted) {
      io.stderr("llama-agent doctor: interrupted\n");
      return EXIT.failure;
    }
    io.stdout(
      parsed.value.flags["json"] === true
        ? JSON.stringify(report, null, 2) + "\n"
        : renderFitnessReport(report),
    );
    return report.verdict === "ready" ? EXIT.ok : EXIT.failure;
  } catch (error) {
    io.stderr(`llama-agent doctor: ${errorMessage(error)}\n`);
    return EXIT.failure;
  } finally {
    stopListening();
  }
}

/** Opens the model, checks it, and closes it again. */
async function diagnose(
  setup: ModelSetup,
  flags: ModelFlags,
  profile: CompatProfile,
  io: CliIo,
  signal: AbortSignal,
): Promise<FitnessReport> {
  const say = (line: string) => io.stderr(`${line}\n`);
  const opened = await openChecked(setup, flags, io, signal);
  try {
    const session = await opened.model.openSession();
    try {
      const chatFormat = setup.kind === "local" && setup.source.kind !== "scripted"
        ? await (await import("../../model/llama/llama_model.ts")).chatFormatOf(session)
        : undefined;
      return await checkModelFitness({
        model: opened.model,
        session,
        kit: createToolKit(profile),
        cwd: io.cwd,
        signal,
        ...(chatFormat === undefined ? {} : { chatFormat: chatFormat satisfies ChatFormat }),
        ...(opened.endpoint === undefined ? {} : { endpoint: opened.endpoint }),
        progress: say,
      });
    } finally {
      await session.dispose();
    }
  } finally {
    await opened.model.dispose();
  }
}

/** The model, and for a server what it says of itself and how to ask it of the tools. */
async function openChecked(
  setup: ModelSetup,
  flags: ModelFlags,
  io: CliIo,
  signal: AbortSignal,
): Promise<{ readonly model: Model; readonly endpoint?: FitnessCheckOptions["endpoint"] }> {
  if (setup.kind === "endpoint") {
    const [openai, support, usage] = await Promise.all([
      import("../../model/openai/openai_model.ts"),
      import("../../model/openai/endpoint_tool_support.ts"),
      import("../../model/openai/endpoint_tool_usage.ts"),
    ]);
    const { baseUrl } = setup.endpoint;
    io.stderr(`Asking the model server at ${baseUrl}\n`);
    const model = await openai.openEndpointModel({ ...setup.endpoint, signal });
    const connection = openai.connectEndpoint(setup.endpoint);
    const said = await support.probeServerToolSupport({
      baseUrl,
      model: model.displayName,
      ...connection.probe,
      signal,
    });
    return {
      model,
      endpoint: {
        baseUrl,
        support: said,
        toolsUsage: (conversation, tools, signal) =>
          usage.toolsUsage(connection, model.displayName, conversation, tools, signal),
      },
    };
  }
  const progress = createProgressReporter(io);
  const model = await openModel(setup.source, {
    contextSize: flags.contextSize,
    threads: flags.threads,
    gpu: flags.gpu === "off" ? "off" : "auto",
    cacheDir: modelCacheDir(io.env),
    signal,
    onProgress: (stage, fraction) =>
      progress(stage === "download" ? "Downloading model" : "Loading model", fraction),
    log: (line) => io.stderr(`llama-agent: ${line}\n`),
  });
  return { model };
}

export const doctorCommand: CliCommand = { spec, run };
