/**
 * `doctor`'s report as a person reads it (`--json` prints the report itself): what the model is,
 * what its context holds, how each probe prompt went, then the verdict with its reasons and what
 * to try instead.
 */
import { GENERIC_CALL_SYNTAX } from "../model/chat_format.ts";
import type { ContextSource } from "../model/model.ts";
import { SERVER_NAMES } from "../model/openai/endpoint_tool_support.ts";
import type { ToolsStatus } from "./fitness_verdict.ts";
import { type FitnessReport, resultLine } from "./model_fitness.ts";

const LABEL_WIDTH = 14;

export function renderFitnessReport(report: FitnessReport): string {
  const where = report.endpoint === undefined ? "in this process" : `on ${report.endpoint}`;
  const lines = [`${report.model}, ${where} (${report.profile} profile)`, ""];
  const row = (label: string, text: string) => lines.push(`${label.padEnd(LABEL_WIDTH)} ${text}`);
  const format = report.chatFormat;
  if (format !== undefined) {
    const template = format.chatTemplate ? "" : " (the file has no chat template)";
    row(
      "Chat template",
      format.toolCalls === "native"
        ? `node-llama-cpp's ${format.wrapper} wrapper${template}: the model's own tool calls`
        : `node-llama-cpp's ${format.wrapper} wrapper${template}: no tool calls of its own; ` +
          `node-llama-cpp's generic syntax (${GENERIC_CALL_SYNTAX})`,
    );
  }
  if (report.server !== undefined) {
    const name = report.server.kind === undefined
      ? "an OpenAI-compatible server"
      : SERVER_NAMES[report.server.kind];
    const said = report.server.said === undefined ? "" : ` (${report.server.said})`;
    row("Server", `${name}: ${TOOLS_WORDS[report.server.tools]}${said}`);
  }
  const context = report.context;
  if (context.size !== undefined && context.source !== undefined) {
    row(
      "Context",
      `${count(context.size)} (${SOURCE_WORDS[context.source]}); an answer may take ` +
        `${count(context.answerTokenCap ?? 0)}`,
    );
  } else {
    row("Context", "the model has no context size");
  }
  const share = context.fixedPromptShare === undefined
    ? ""
    : `, ${Math.round(context.fixedPromptShare * 100)} % of the context`;
  row(
    "Fixed prompt",
    `${count(context.fixedPromptTokens)}${share}: system prompt ` +
      `${context.systemPromptTokens.toLocaleString("en-US")}, tool definitions ` +
      `${context.toolDefinitionTokens.toLocaleString("en-US")} (${context.toolForm} tools; ${
        context.counted === "tokenizer" ? "the model's tokenizer" : "estimated, erring high"
      })`,
  );
  const probe = report.probe;
  row(
    "Tool calls",
    `${probe.valid} of ${probe.prompts} prompts got a valid, relevant call (answers capped at ` +
      `${probe.answerTokenCap} tokens, ${probe.seconds.toFixed(1)} s)`,
  );
  const width = Math.max(0, ...probe.results.map((result) => result.label.length));
  for (const result of probe.results) {
    lines.push(`  ${result.label.padEnd(width)}  ${resultLine(result)}`);
  }
  lines.push("", `Verdict: ${report.verdict}`);
  for (const finding of report.findings) {
    const level = finding.level === "note" ? "note: " : "";
    lines.push(`  - ${level}${finding.reason}`);
    if (finding.advice !== undefined) lines.push(`    Try: ${finding.advice}`);
  }
  return lines.join("\n") + "\n";
}

const TOOLS_WORDS: Readonly<Record<ToolsStatus, string>> = {
  honoured: "uses the tools",
  dropped: "drops the tools",
  refused: "refuses requests with tools",
  unknown: "cannot tell whether it uses the tools",
};

const SOURCE_WORDS: Readonly<Record<ContextSource, string>> = {
  model: "the model's context in this process",
  server: "the server says so",
  flag: "--ctx-size",
  assumed: "assumed: the server does not say",
};

function count(tokens: number): string {
  return `${tokens.toLocaleString("en-US")} tokens`;
}
