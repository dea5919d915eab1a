/**
 * `llama-agent doctor` end to end: generated GGUF models through the real launcher and
 * node-llama-cpp, scripted models and the loopback fake OpenAI server in process (a server that
 * takes the tools, one that drops them, one that refuses them), the real SmolLM2-135M and
 * llama-cpp-python where the test parts are installed, the `--json` shape and the usage errors.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { runCli as runLauncher, withTempProject } from "../helpers/run_cli.ts";
import { writeReplyModel, writeToolCallModel } from "../helpers/test_models.ts";
import {
  type FakeReply,
  llamaServerProps,
  ollamaShow,
  startFakeServer,
} from "../helpers/openai_fake_server.ts";
import { testOnParts } from "../helpers/test_parts.ts";
import { startLlamaCppServer } from "../helpers/llama_cpp_server.ts";
import { basename, dirname } from "node:path";
import { runCli, runCliCapturingOutput } from "../../src/cli/run_cli.ts";
// Loaded with the file, as the process loads it once: its tools open the C library for good.
import { doctorCommand } from "../../src/cli/commands/doctor.ts";
import type { CliIo } from "../../src/cli/command_spec.ts";
import type { FitnessReport } from "../../src/doctor/model_fitness.ts";
import { PROBE_TASKS } from "../../src/doctor/probe_tasks.ts";
import { contextForPrompt } from "../../src/model/answer_cap.ts";

interface DoctorRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `llama-agent doctor ARGS` in this process, launched in `cwd` with a HOME of `cwd`. */
async function doctor(args: readonly string[], cwd: string): Promise<DoctorRun> {
  let stdout = "";
  let stderr = "";
  const env: Record<string, string> = { HOME: cwd };
  const io: CliIo = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    stdoutIsTty: false,
    stderrIsTty: false,
    env: (name) => env[name],
    cwd,
    stdinStream: () => new ReadableStream(),
    stdoutStream: () => new WritableStream(),
    routeConsoleToStderr: () => Promise.resolve(),
    onTermination: () => () => {},
  };
  const code = await runCli(["doctor", ...args], io);
  return { code, stdout, stderr };
}

function reportOf(run: DoctorRun): FitnessReport {
  assert(run.stdout.startsWith("{"), `stdout is not JSON:\n${run.stdout}\n${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** The calls a model that calls the right tool each time makes, in the probe's order. */
const RIGHT_CALLS: Readonly<Record<string, { name: string; input: object }>> = {
  read_file: { name: "fs_read", input: { file_path: "notes.txt" } },
  find_files: { name: "fs_glob", input: { pattern: "**/*.md" } },
  search_text: { name: "fs_grep", input: { pattern: "TODO" } },
  run_command: { name: "shell", input: { command: "git status" } },
  write_file: { name: "fs_write", input: { file_path: "hello.txt", content: "Hello, world\n" } },
};

function rightCall(taskId: string): { name: string; input: object } {
  const call = RIGHT_CALLS[taskId];
  assert(call !== undefined, `no call for task ${taskId}`);
  return call;
}

async function writeScript(dir: string, script: object): Promise<string> {
  await Deno.writeTextFile(`${dir}/model.json`, JSON.stringify(script));
  return "scripted:model.json";
}

const rightTurns = () => PROBE_TASKS.map((task) => ({ toolCalls: [rightCall(task.id)] }));

// --- in process, scripted models ---------------------------------------------------------------

Deno.test("a model that calls the right tool for every probe prompt is ready, exit 0", async () => {
  await withTempProject({}, async (dir) => {
    const model = await writeScript(dir, { contextSize: 32768, turns: rightTurns() });
    const run = await doctor(["--model", model], dir);
    assertEquals(run.code, 0, run.stderr);
    assertMatch(run.stdout, /Tool calls +5 of 5 prompts got a valid, relevant call/);
    assertStringIncludes(run.stdout, "Verdict: ready");
    // Progress is stderr's, one line per prompt and one per result.
    assertStringIncludes(run.stderr, "Asking the model to read a file (1 of 5)");
    assertStringIncludes(run.stderr, "valid call to fs_write");
  });
});

Deno.test("--json gives the verdict, the findings, the context and each probe result", async () => {
  await withTempProject({}, async (dir) => {
    const turns = rightTurns();
    // The second answer is text, the third calls another tool, the fifth writes elsewhere.
    turns[1] = { text: "There are two Markdown files." } as never;
    turns[2] = { toolCalls: [{ name: "shell", input: { command: "grep -r TODO ." } }] };
    turns[4] = { toolCalls: [{ name: "fs_write", input: { file_path: "x.txt", content: "" } }] };
    const model = await writeScript(dir, { contextSize: 32768, turns });
    const run = await doctor(["--model", model, "--json"], dir);
    assertEquals(run.code, 1, run.stderr);
    const report = reportOf(run);
    assertEquals(report.verdict, "limited");
    assertEquals(report.where, "process");
    assertEquals(report.profile, "llama");
    assertEquals(report.probe.prompts, 5);
    assertEquals(report.probe.valid, 2);
    assertEquals(report.probe.answerTokenCap, 128);
    assertEquals(
      report.probe.results.map((result) => [result.task, result.outcome]),
      [
        ["read_file", "valid"],
        ["find_files", "text"],
        ["search_text", "wrong_tool"],
        ["run_command", "valid"],
        ["write_file", "off_task"],
      ],
    );
    assertEquals(report.probe.results[2]!.detail, "shell where fs_grep was needed");
    assertEquals(report.context.size, 32768);
    assertEquals(report.context.source, "model");
    assertEquals(report.context.answerTokenCap, 8192);
    assertEquals(
      report.context.fixedPromptTokens,
      report.context.systemPromptTokens + report.context.toolDefinitionTokens,
    );
    assert(report.context.toolDefinitionTokens > report.context.systemPromptTokens);
    assertEquals(report.findings.length, 1, JSON.stringify(report.findings));
    assertEquals(report.findings[0]!.level, "limited");
    assertStringIncludes(report.findings[0]!.reason, "Only 2 of 5 prompts");
    assertStringIncludes(report.findings[0]!.advice ?? "", "single reads and edits");
    assertEquals(run.stderr.includes("{"), false, "the JSON is stdout's only");
  });
});

Deno.test("answers are repaired as a turn repairs them: calls written as text, JSON-string arguments, other agents' names", async () => {
  await withTempProject({}, async (dir) => {
    const model = await writeScript(dir, {
      turns: [
        {
          text:
            '<tool_call>{"name": "fs_read", "arguments": {"file_path": "notes.txt"}}</tool_call>',
        },
        { toolCalls: [{ name: "fs_glob", input: '{"pattern": "**/*.md"}' }] },
        { toolCalls: [{ name: "grep", input: { pattern: "TODO" } }] },
        { toolCalls: [{ name: "bash", input: { command: "git status" } }] },
        { text: "Done: hello.txt now says Hello, world." },
      ],
    });
    const report = reportOf(await doctor(["--model", model, "--json"], dir));
    assertEquals(
      report.probe.results.map((result) => [result.outcome, result.call?.name]),
      [
        ["valid", "fs_read"],
        ["valid", "fs_glob"],
        ["valid", "grep"],
        ["valid", "shell"],
        ["text", undefined],
      ],
    );
    assertEquals(report.probe.results[0]!.call?.repair?.fromText !== undefined, true);
    assertEquals(report.probe.results[1]!.call?.repair?.decodedArguments, true);
    assertEquals(report.probe.results[3]!.call?.repair?.emittedName, "bash");
    assertEquals(report.verdict, "ready");
  });
});

Deno.test("a context that cannot hold the fixed prompt and one answer is unsuitable, naming the --ctx-size", async () => {
  await withTempProject({}, async (dir) => {
    // Measured where the lean tools are offered (4096 tokens or fewer), as in the runs below.
    const measured = reportOf(
      await doctor(
        ["--model", await writeScript(dir, { contextSize: 4096, turns: rightTurns() }), "--json"],
        dir,
      ),
    );
    const fixed = measured.context.fixedPromptTokens;
    assertEquals(measured.context.toolForm, "lean");

    // Room for the prompts, not for an answer as well (the cap is at least 512 tokens).
    const tight = await writeScript(dir, { contextSize: fixed + 100, turns: rightTurns() });
    const run = await doctor(["--model", tight], dir);
    assertEquals(run.code, 1);
    assertStringIncludes(run.stdout, "Verdict: unsuitable");
    assertStringIncludes(run.stdout, "do not fit in the context");
    assertStringIncludes(run.stdout, `Try: pass --ctx-size ${contextForPrompt(fixed)} or more`);

    // Room for an answer, but the fixed prompt takes over half: limited.
    const half = await writeScript(dir, { contextSize: fixed + 600, turns: rightTurns() });
    const limited = reportOf(await doctor(["--model", half, "--json"], dir));
    assertEquals(limited.verdict, "limited");
    assertStringIncludes(limited.findings[0]!.reason, "The fixed prompt takes");
  });
});

Deno.test("--compat claude probes with Claude Code's tools; the llama profile's names run as them", async () => {
  await withTempProject({}, async (dir) => {
    const turns = rightTurns();
    turns[0] = { toolCalls: [{ name: "Read", input: { file_path: `${dir}/notes.txt` } }] };
    // A name no profile has is the wrong tool.
    turns[2] = { toolCalls: [{ name: "search_code", input: { query: "TODO" } }] };
    const model = await writeScript(dir, { turns });
    const report = reportOf(await doctor(["--model", model, "--compat", "claude", "--json"], dir));
    assertEquals(report.profile, "claude");
    assertEquals(report.probe.results.map((result) => [result.expected, result.outcome]), [
      ["Read", "valid"],
      ["Glob", "valid"],
      ["Grep", "wrong_tool"],
      ["Bash", "valid"],
      ["Write", "valid"],
    ]);
    assertEquals(report.probe.results[1]!.call?.name, "Glob");
    assertEquals(report.probe.results[1]!.call?.repair?.emittedName, "fs_glob");
    assertEquals(report.verdict, "ready");
  });
});

// --- usage errors ------------------------------------------------------------------------------

Deno.test("usage errors exit 2 with a message that says what to pass", async () => {
  await withTempProject({ "notes.txt": "not a model\n" }, async (dir) => {
    const cases: [string[], string][] = [
      [[], "Name the model to check: --model PATH"],
      [["--json"], "Name the model to check"],
      [
        ["--modle", "x.gguf"],
        'Unknown flag "--modle" for "llama-agent doctor": did you mean "--model"?',
      ],
      [
        ["--model", "x.gguf", "--ctx-size", "lots"],
        '--ctx-size must be a positive integer, got "lots"',
      ],
      [["--model", "x.gguf", "--compat", "claud"], 'did you mean "claude"?'],
      [["--model", "x.gguf", "--threads", "0"], '--threads must be a positive integer, got "0"'],
      [["--model", "x.gguf", "--gpu", "cuda"], '"auto", "off"'],
      [["--model", "missing.gguf"], "missing.gguf"],
      [["--model", "notes.txt"], "notes.txt"],
      [["--model", "x.gguf", "--api-key-env", "KEY"], "--api-key-env is for --endpoint"],
      [["--endpoint", "localhost:8080"], "--endpoint"],
      [["--model", "x.gguf", "extra"], "extra"],
    ];
    for (const [args, message] of cases) {
      const run = await doctor(args, dir);
      assertEquals(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
      assertStringIncludes(run.stderr, message, args.join(" "));
      assertEquals(run.stdout, "", args.join(" "));
    }
  });
});

Deno.test("doctor --help names every flag, the verdicts and the exit codes", async () => {
  await withTempProject({}, async (dir) => {
    const run = await doctor(["--help"], dir);
    assertEquals(run.code, 0);
    assertEquals(
      doctorCommand.spec.flags.map((flag) => flag.name),
      ["model", "endpoint", "api-key-env", "ctx-size", "threads", "gpu", "compat", "json"],
    );
    for (const flag of doctorCommand.spec.flags) assertStringIncludes(run.stdout, `--${flag.name}`);
    assertStringIncludes(run.stdout, "unsuitable");
    assertStringIncludes(run.stdout, "Exits 0 when ready");
    const top = await runCliCapturingOutput(["--help"]);
    assertMatch(top.stdout, /\n {2}doctor +check whether a model can drive the agent's tools/);
  });
});

// --- endpoints, on the loopback fake -----------------------------------------------------------

function chunk(delta: object, finish: string | null = null): object {
  return {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 1764547200,
    model: "smol",
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

function usageChunk(promptTokens: number): object {
  return {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 1764547200,
    model: "smol",
    choices: [],
    usage: { prompt_tokens: promptTokens, completion_tokens: 7, total_tokens: promptTokens + 7 },
  };
}

function callReply(name: string, input: object): FakeReply {
  return {
    kind: "stream",
    chunks: [
      chunk({ role: "assistant", content: null }),
      chunk({
        tool_calls: [{
          index: 0,
          id: "call_1",
          type: "function",
          function: { name, arguments: JSON.stringify(input) },
        }],
      }),
      chunk({}, "tool_calls"),
    ],
  };
}

function textReply(text: string, promptTokens?: number): FakeReply {
  return {
    kind: "stream",
    chunks: [
      chunk({ role: "assistant", content: text }),
      chunk({}, "stop"),
      ...(promptTokens === undefined ? [] : [usageChunk(promptTokens)]),
    ],
  };
}

/** A whole completion of one token, with the prompt's usage where given. */
function oneToken(promptTokens?: number): FakeReply {
  return {
    kind: "completion",
    body: {
      id: "chatcmpl-fake",
      object: "chat.completion",
      created: 1764547200,
      model: "smol",
      choices: [{
        index: 0,
        message: { role: "assistant", content: "I" },
        finish_reason: "length",
      }],
      ...(promptTokens === undefined ? {} : {
        usage: {
          prompt_tokens: promptTokens,
          completion_tokens: 1,
          total_tokens: promptTokens + 1,
        },
      }),
    },
  };
}

Deno.test("an endpoint that takes the tools and whose model calls them is ready; the server says its context", async () => {
  const server = startFakeServer({
    models: [{ id: "smol", object: "model", owned_by: "llamacpp" }],
    routes: { "GET /props": llamaServerProps(16384) },
  });
  try {
    await withTempProject({}, async (dir) => {
      for (const task of PROBE_TASKS) {
        const call = rightCall(task.id);
        server.reply(callReply(call.name, call.input));
      }
      const run = await doctor(["--endpoint", server.baseUrl, "--threads", "2", "--json"], dir);
      assertEquals(run.code, 0, run.stderr);
      assertStringIncludes(run.stderr, "--threads is for a model in this process");
      const report = reportOf(run);
      assertEquals(report.verdict, "ready");
      assertEquals(report.where, "endpoint");
      assertEquals(report.endpoint, server.baseUrl);
      assertEquals(report.model, "smol");
      assertEquals(report.server, {
        kind: "llama-server",
        tools: "honoured",
        said: "the model answered with tool calls",
      });
      assertEquals(report.context.size, 16384);
      assertEquals(report.context.source, "server");
      assertEquals(report.context.counted, "estimate");
      assertEquals(report.findings, []);
      // Each probe prompt is one request with the profile's tools and the answer cap.
      assertEquals(server.requests.length, 5);
      for (const request of server.requests) {
        assertEquals((request.tools as unknown[]).length, 6);
        assertEquals(request.max_tokens, 128);
      }
    });
  } finally {
    await server.close();
  }
});

Deno.test("llama-cpp-python's default chat format drops the tools: unsuitable, naming --chat_format chatml-function-calling", async () => {
  // Its listing says owned_by "me"; it answers in text and counts the same prompt with and
  // without the tools.
  const server = startFakeServer({
    models: [{ id: "smol", object: "model", owned_by: "me", permissions: [] }],
  });
  try {
    await withTempProject({}, async (dir) => {
      for (const _ of PROBE_TASKS) server.reply(textReply("I cannot see your files."));
      server.reply(oneToken(412), oneToken(412));
      const run = await doctor(["--endpoint", server.baseUrl, "--json"], dir);
      assertEquals(run.code, 1, run.stderr);
      const report = reportOf(run);
      assertEquals(report.verdict, "unsuitable");
      assertEquals(report.server?.kind, "llama-cpp-python");
      assertEquals(report.server?.tools, "dropped");
      assertEquals(
        report.server?.said,
        "it reported 412 prompt tokens with the tools and 412 without them",
      );
      const dropped = report.findings.find((finding) => finding.level === "unsuitable");
      assertStringIncludes(dropped?.reason ?? "", "The server drops the tools");
      assertStringIncludes(dropped?.advice ?? "", "--chat_format chatml-function-calling");
      // The model is not blamed for tools it never saw; the assumed context is said.
      assertEquals(
        report.findings.map((finding) => finding.level),
        ["unsuitable", "note", "note"],
      );
      assertEquals(report.context.source, "assumed");
      // The first prompt again, whole, for one token: with the tools, then without them.
      assertEquals(server.requests.length, 7);
      const [withTools, withoutTools] = server.requests.slice(5);
      assertEquals([withTools!.stream, withTools!.max_tokens], [false, 1]);
      assertEquals((withTools!.tools as unknown[]).length, 6);
      assertEquals(withTools!.messages, server.requests[0]!.messages);
      assertEquals([withoutTools!.tools, withoutTools!.max_tokens], [undefined, 1]);
      assertEquals(withoutTools!.messages, server.requests[0]!.messages);
    });
    // The same, for a person: the server, what it does, and the flag.
    await withTempProject({}, async (dir) => {
      for (const _ of PROBE_TASKS) server.reply(textReply("I cannot see your files."));
      server.reply(oneToken(412), oneToken(412));
      const run = await doctor(["--endpoint", server.baseUrl], dir);
      assertStringIncludes(run.stdout, "Server         llama-cpp-python: drops the tools");
      assertStringIncludes(run.stdout, "Verdict: unsuitable");
      assertStringIncludes(run.stdout, "Try: start llama-cpp-python's server with --chat_format");
    });
  } finally {
    await server.close();
  }
});

Deno.test("a server that takes the tools counts them: text answers then are the model's, not the server's", async () => {
  const server = startFakeServer({ models: [{ id: "smol" }] });
  try {
    await withTempProject({}, async (dir) => {
      for (const _ of PROBE_TASKS) server.reply(textReply("Sure."));
      server.reply(oneToken(1400), oneToken(90));
      const report = reportOf(await doctor(["--endpoint", server.baseUrl, "--json"], dir));
      assertEquals(report.server?.tools, "honoured");
      assertEquals(report.server?.kind, undefined);
      assertEquals(report.verdict, "unsuitable");
      const reason = report.findings.find((finding) => finding.level !== "note")?.reason;
      assertStringIncludes(reason ?? "", "0 of 5 prompts");
    });
  } finally {
    await server.close();
  }
});

Deno.test("llama-server whose chat template takes no tools drops them, by its own word, without usage", async () => {
  const props = {
    ...llamaServerProps(8192),
    chat_template_caps: { supports_tools: false, supports_tool_calls: false },
  };
  const server = startFakeServer({ models: [{ id: "smol" }], routes: { "GET /props": props } });
  try {
    await withTempProject({}, async (dir) => {
      for (const _ of PROBE_TASKS) server.reply(textReply("Hello."));
      // No usage: the server's own word decides.
      server.reply(oneToken(), oneToken());
      const report = reportOf(await doctor(["--endpoint", server.baseUrl, "--json"], dir));
      assertEquals(report.server?.kind, "llama-server");
      assertEquals(report.server?.tools, "dropped");
      assertStringIncludes(report.server?.said ?? "", "chat_template_caps.supports_tools is false");
      assertStringIncludes(report.findings[0]!.advice ?? "", "--jinja");
      assertEquals(report.verdict, "unsuitable");
    });
  } finally {
    await server.close();
  }
});

Deno.test("an Ollama model without the tools capability refuses requests with tools: unsuitable, pick another model", async () => {
  const show = { ...ollamaShow("gemma3", 32768), capabilities: ["completion"] };
  const server = startFakeServer({
    models: [{ id: "gemma3:270m" }],
    routes: { "POST /api/show": show },
  });
  const refusal: FakeReply = {
    kind: "error",
    status: 400,
    body: { error: { message: "registry.ollama.ai/library/gemma3:270m does not support tools" } },
  };
  try {
    await withTempProject({}, async (dir) => {
      for (const _ of PROBE_TASKS) server.reply(refusal);
      server.reply(refusal, oneToken(50));
      const run = await doctor(["--endpoint", server.baseUrl, "--json"], dir);
      assertEquals(run.code, 1);
      const report = reportOf(run);
      assertEquals(report.server?.kind, "ollama");
      assertEquals(report.server?.tools, "refused");
      assertEquals(report.probe.results.every((result) => result.outcome === "failed"), true);
      assertStringIncludes(report.findings[0]!.reason, "refuses requests with tools");
      assertStringIncludes(report.findings[0]!.advice ?? "", "ollama show gemma3:270m");
    });
  } finally {
    await server.close();
  }
});

Deno.test("a server that cannot be reached is said on stderr, exit 1, and nothing on stdout", async () => {
  const server = startFakeServer();
  const baseUrl = server.baseUrl;
  await server.close();
  await withTempProject({}, async (dir) => {
    const run = await doctor(["--endpoint", baseUrl], dir);
    assertEquals(run.code, 1);
    assertEquals(run.stdout, "");
    assertStringIncludes(run.stderr, "Cannot reach the model server");
  });
});

// --- generated GGUF models through the launcher ------------------------------------------------

Deno.test("a GGUF model in process: the ChatML template has no tool calls of its own; a model that always reads notes.txt is limited", async () => {
  await withTempProject({}, async (dir) => {
    const model = await writeToolCallModel(dir, {
      toolName: "fs_read",
      params: { file_path: "notes.txt" },
      answer: "Read.",
    });
    const run = await runLauncher(["doctor", "--model", model, "--json"], { cwd: dir, home: dir });
    assertEquals(run.code, 1, run.stderr);
    const report = reportOf(run);
    assertEquals(report.chatFormat, {
      wrapper: "ChatML",
      chatTemplate: true,
      toolCalls: "generic",
    });
    assertEquals(report.context.counted, "tokenizer");
    assertEquals(report.context.source, "model");
    assertEquals(report.probe.results.map((result) => result.outcome), [
      "valid",
      "wrong_tool",
      "wrong_tool",
      "wrong_tool",
      "wrong_tool",
    ]);
    assertEquals(report.verdict, "limited");
    assertStringIncludes(report.findings[0]!.reason, "generic syntax (||call: name(params))");
    assertStringIncludes(run.stderr, "Loading model");
  });
});

Deno.test("a GGUF model that answers every prompt in text is unsuitable, and the report says why", async () => {
  await withTempProject({}, async (dir) => {
    const model = await writeReplyModel(dir, "Hello from the scripted model.");
    const run = await runLauncher(["doctor", "--model", model], { cwd: dir, home: dir });
    assertEquals(run.code, 1, run.stderr);
    assertStringIncludes(
      run.stdout,
      "Chat template  node-llama-cpp's ChatML wrapper: no tool calls of its own",
    );
    assertMatch(run.stdout, /read a file +no call, text: "Hello from the scripted model\."/);
    assertStringIncludes(run.stdout, "Verdict: unsuitable");
    assertStringIncludes(run.stdout, "0 of 5 prompts that each needed one tool");
    assertStringIncludes(run.stdout, "Try: a larger instruct model");
  });
});

// --- the real parts ----------------------------------------------------------------------------

testOnParts(
  "the real SmolLM2-135M in process is not ready: no tool calls under node-llama-cpp's generic syntax",
  async (parts) => {
    await withTempProject({}, async (dir) => {
      // Started where the model is, which the launcher lets it read.
      const run = await runLauncher(
        // One thread: a busy machine's cores are not spun for by two.
        ["doctor", "--model", basename(parts.instructModel), "--threads", "1", "--json"],
        { cwd: dirname(parts.instructModel), home: dir },
      );
      assertEquals(run.code, 1, run.stderr);
      const report = reportOf(run);
      assert(report.verdict !== "ready", JSON.stringify(report.findings));
      assertEquals(report.chatFormat?.wrapper, "ChatML");
      assertEquals(report.chatFormat?.toolCalls, "generic");
      assert(report.probe.valid < 3, `valid: ${report.probe.valid}`);
      const reason = report.findings.find((finding) => finding.level !== "note")?.reason ?? "";
      assertStringIncludes(reason, "generic syntax");
      // Each answer is capped: the probe cannot run long.
      for (const result of report.probe.results) assert(result.generatedTokens <= 128);
    });
  },
);

testOnParts(
  "the real llama-cpp-python with its default chat format drops the tools, and doctor names the flag",
  async (parts) => {
    const server = await startLlamaCppServer(parts, { contextSize: 4096 });
    try {
      await withTempProject({}, async (dir) => {
        const run = await doctor(["--endpoint", server.baseUrl, "--json"], dir);
        const report = reportOf(run);
        assertEquals(report.server?.kind, "llama-cpp-python", server.output());
        assertEquals(report.server?.tools, "dropped", JSON.stringify(report.server));
        assertEquals(report.verdict, "unsuitable");
        assertStringIncludes(
          report.findings[0]!.advice ?? "",
          "--chat_format chatml-function-calling",
        );
      });
    } finally {
      await server.stop();
    }
  },
);
