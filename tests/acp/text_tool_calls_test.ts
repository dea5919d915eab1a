/**
 * Calls written as text (text_tool_calls.ts): each syntax small models use, and the rule that
 * tells an answer that is calls from prose that shows or mentions JSON.
 */
import { LEAD_IN_MAX_CHARS, textToolCalls } from "../../src/acp/turn/text_tool_calls.ts";
import { assertEquals } from "../helpers/assert.ts";

const TOOLS = new Set(["Bash", "Read", "shell", "fs_read", "bash", "mcp__files__list"]);
const isTool = (name: string) => TOOLS.has(name);
const calls = (text: string) => textToolCalls(text, isTool)?.calls;

Deno.test("a <tool_call> tag holding a call is that call", () => {
  assertEquals(
    textToolCalls(
      '<tool_call>\n{"name": "Bash", "arguments": {"command": "ls"}}\n</tool_call>',
      isTool,
    ),
    { calls: [{ name: "Bash", input: { command: "ls" }, syntax: "tool_call_tag" }], start: 0 },
  );
});

Deno.test("a <tool_call> tag with no closing tag at the end of the answer is still the call", () => {
  assertEquals(calls('<tool_call>{"name": "Read", "arguments": {"file_path": "a.txt"}}'), [
    { name: "Read", input: { file_path: "a.txt" }, syntax: "tool_call_tag" },
  ]);
});

Deno.test("a fenced json block with name and arguments, or parameters, is the call", () => {
  assertEquals(calls('```json\n{"name": "Bash", "arguments": {"command": "pwd"}}\n```'), [
    { name: "Bash", input: { command: "pwd" }, syntax: "json_fence" },
  ]);
  assertEquals(calls('```\n{"name": "fs_read", "parameters": {"file_path": "x"}}\n```\n'), [
    { name: "fs_read", input: { file_path: "x" }, syntax: "json_fence" },
  ]);
});

Deno.test("bare JSON that is a call, and OpenAI's function shape, are calls", () => {
  assertEquals(calls('  {"name": "shell", "arguments": {"command": "date"}}  '), [
    { name: "shell", input: { command: "date" }, syntax: "json" },
  ]);
  assertEquals(
    calls(
      '{"type": "function", "function": {"name": "Bash", "arguments": "{\\"command\\": \\"id\\"}"}}',
    ),
    [{ name: "Bash", input: '{"command": "id"}', syntax: "json" }],
  );
});

Deno.test("node-llama-cpp's generic syntax is a call, with or without parameters", () => {
  assertEquals(calls('||call: Read({"file_path": "notes.txt"})'), [
    { name: "Read", input: { file_path: "notes.txt" }, syntax: "call_prefix" },
  ]);
  assertEquals(calls("||call:mcp__files__list()"), [
    { name: "mcp__files__list", input: {}, syntax: "call_prefix" },
  ]);
  assertEquals(calls('||call: Bash({"command": "echo (a) )"})'), [
    { name: "Bash", input: { command: "echo (a) )" }, syntax: "call_prefix" },
  ]);
});

Deno.test("several calls in one answer are several calls, in order, whatever their syntax", () => {
  const text = '<tool_call>{"name": "Read", "arguments": {"file_path": "a"}}</tool_call>\n' +
    '<tool_call>{"name": "Bash", "arguments": {"command": "ls"}}</tool_call>\n' +
    '```json\n[{"name": "Read", "arguments": {"file_path": "b"}}, ' +
    '{"name": "Read", "arguments": {"file_path": "c"}}]\n```\n' +
    '||call: Bash({"command": "pwd"})';
  assertEquals(calls(text)?.map((call) => [call.name, call.input]), [
    ["Read", { file_path: "a" }],
    ["Bash", { command: "ls" }],
    ["Read", { file_path: "b" }],
    ["Read", { file_path: "c" }],
    ["Bash", { command: "pwd" }],
  ]);
  assertEquals(
    calls(
      '<tool_call>\n{"name": "Read", "arguments": {"file_path": "a"}}\n' +
        '{"name": "Read", "arguments": {"file_path": "b"}}\n</tool_call>',
    )?.length,
    2,
    "two objects in one tag",
  );
});

Deno.test("a short lead-in before the calls is kept as the model's words; start says where it ends", () => {
  const text = "I'll list the files.\n\n<tool_call>\n" +
    '{"name": "Bash", "arguments": {"command": "ls"}}\n</tool_call>';
  const found = textToolCalls(text, isTool);
  assertEquals(found?.start, "I'll list the files.".length);
  assertEquals(found?.calls.length, 1);
  assertEquals(
    calls('Let me check.\n```json\n{"name": "Bash", "arguments": {"command": "ls"}}\n```')?.length,
    1,
  );
});

Deno.test("a <think> block before the calls is not the lead-in", () => {
  const thought = `<think>\n${"The user wants files.\n\n".repeat(20)}</think>\n\n`;
  const found = textToolCalls(
    `${thought}<tool_call>{"name": "Bash", "arguments": {"command": "ls"}}</tool_call>`,
    isTool,
  );
  assertEquals(found?.start, thought.trimEnd().length);
});

Deno.test("prose that mentions or shows JSON is not a call", () => {
  const call = '{"name": "Bash", "arguments": {"command": "rm -rf build"}}';
  const prose = [
    // JSON inside a sentence.
    `A call looks like ${call} in the log.`,
    // Words after the block.
    `Here is an example:\n\`\`\`json\n${call}\n\`\`\`\nThis would delete the build folder.`,
    // A longer explanation before it.
    `${"This explains the format in detail. ".repeat(8)}\n\`\`\`json\n${call}\n\`\`\``,
    // Two paragraphs before it.
    `The tool takes a command.\n\nFor example:\n\`\`\`json\n${call}\n\`\`\``,
    // An object that is not a call: no arguments outside a tag, or no name.
    '```json\n{"name": "Bash", "version": 5}\n```',
    '```json\n{"tool": "Bash", "arguments": {}}\n```',
    // Another language's fence.
    `\`\`\`python\n${call}\n\`\`\``,
    // A fence never closed.
    `\`\`\`json\n${call}`,
    // Broken JSON in a fence.
    '```json\n{"name": "Bash", "arguments": {"command": "ls"}\n```',
    // A call followed by an invented result.
    '||call: Bash({"command": "ls"})\n||result: a.txt',
    // Nothing but prose.
    "The answer is 42.",
    "",
  ];
  for (const text of prose) assertEquals(calls(text), undefined, text);
});

Deno.test("the lead-in may be LEAD_IN_MAX_CHARS characters, and no more", () => {
  const call = '<tool_call>{"name": "Bash", "arguments": {"command": "ls"}}</tool_call>';
  assertEquals(calls(`${"a".repeat(LEAD_IN_MAX_CHARS)}\n${call}`)?.length, 1);
  assertEquals(calls(`${"a".repeat(LEAD_IN_MAX_CHARS + 1)}\n${call}`), undefined);
});

Deno.test("a call to a tool not on offer leaves the whole answer as text", () => {
  // node-llama-cpp's own example, which small models recite.
  assertEquals(calls('||call: getSomeInfo({"someKey": "someValue"})'), undefined);
  assertEquals(
    calls(
      '<tool_call>{"name": "Bash", "arguments": {"command": "ls"}}</tool_call>' +
        '<tool_call>{"name": "web_search", "arguments": {"q": "x"}}</tool_call>',
    ),
    undefined,
  );
});

Deno.test("broken JSON in a tag keeps the name and gives the arguments as text", () => {
  // The outer object lacks its closing brace; the arguments are whole.
  assertEquals(calls('<tool_call>{"name": "Bash", "arguments": {"command": "ls"}</tool_call>'), [
    { name: "Bash", input: '{"command": "ls"}', syntax: "tool_call_tag" },
  ]);
  // The arguments themselves are broken: from them to the end of the tag.
  assertEquals(
    calls('<tool_call>{"name": "Bash", "arguments": {"command": "ls}}</tool_call>'),
    [{ name: "Bash", input: '{"command": "ls}}', syntax: "tool_call_tag" }],
  );
  assertEquals(calls('||call: Bash({"command": ls})'), [
    { name: "Bash", input: '{"command": ls}', syntax: "call_prefix" },
  ]);
  // Without a name nothing can be called.
  assertEquals(calls('<tool_call>{"arguments": {"command": "ls"</tool_call>'), undefined);
});

Deno.test("a tag may hold a fenced block, and a fence may hold tags", () => {
  assertEquals(
    calls(
      '<tool_call>\n```json\n{"name": "Read", "arguments": {"file_path": "a"}}\n```\n</tool_call>',
    )
      ?.map((call) => call.name),
    ["Read"],
  );
  assertEquals(
    calls('```\n<tool_call>{"name": "Read", "arguments": {"file_path": "a"}}</tool_call>\n```')
      ?.map((call) => call.syntax),
    ["tool_call_tag"],
  );
});

Deno.test("inside a tag a call without arguments is a call with none; in a fence it is data", () => {
  assertEquals(calls('<tool_call>{"name": "mcp__files__list"}</tool_call>'), [
    { name: "mcp__files__list", input: {}, syntax: "tool_call_tag" },
  ]);
  assertEquals(calls('```json\n{"name": "mcp__files__list"}\n```'), undefined);
});
