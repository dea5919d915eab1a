/**
 * Bash is a shell that lasts, in the claude profile as in Claude Code: a `cd` carries over to the
 * next command, and every later hook payload's `cwd` (and the directory hooks run in) is the new
 * directory, while `CLAUDE_PROJECT_DIR` stays the project; a `cd` out of the session's directories
 * puts the shell back with Claude Code's notice. The llama profile keeps its contract: each
 * command starts in the session directory, and hooks see that.
 */
import type { GenerateRequest } from "../../src/model/model.ts";
import { assertEquals } from "../helpers/assert.ts";
import { calling, text } from "./claude_session_fixture.ts";
import { logging, readLog, settings } from "./hook_fixtures.ts";
import { withInMemoryAgent } from "./in_memory_agent.ts";

/** The results the model read for the tool calls of `request`, in order. */
function toolResults(request: GenerateRequest): string[] {
  return request.conversation.flatMap((item) =>
    item.role === "assistant"
      ? item.segments.flatMap((s) => s.type === "tool_call" ? [s.result] : [])
      : []
  );
}

/** A hook that notes the directory it runs in, one line per call. */
const NOTE_WHERE = 'pwd >> "$CLAUDE_PROJECT_DIR/where.log"';

async function lines(path: string): Promise<string[]> {
  return (await Deno.readTextFile(path)).split("\n").filter((line) => line !== "");
}

Deno.test("claude: a cd carries over to the next Bash call and to every later payload's cwd", async () => {
  const requests: GenerateRequest[] = [];
  const elsewhere = await Deno.realPath(await Deno.makeTempDir({ prefix: "bash_elsewhere_" }));
  try {
    await withInMemoryAgent({
      profile: "claude",
      files: {
        "sub/.keep": "",
        ".claude/settings.json": settings({
          PreToolUse: [["Bash", logging("pre.log")], ["Bash", NOTE_WHERE]],
          Stop: [[null, logging("stop.log")]],
        }),
      },
      model: calling([
        ["Bash", { command: "cd sub" }],
        ["Bash", { command: "pwd" }],
        ["Bash", { command: `cd ${elsewhere} && echo left` }],
        ["Bash", { command: "pwd" }],
      ], requests),
    }, async (t) => {
      const sessionId = await t.newSession();
      const response = await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
      assertEquals(response.stopReason, "end_turn");
      const sub = `${t.cwd}/sub`;
      assertEquals(toolResults(requests.at(-1)!), [
        "(Bash completed with no output)",
        sub,
        `left\nShell cwd was reset to ${t.cwd}`,
        t.cwd,
      ]);
      const pre = await readLog(`${t.cwd}/pre.log`);
      assertEquals(pre.map((payload) => payload.cwd), [t.cwd, sub, sub, t.cwd]);
      // The hooks themselves ran there, with CLAUDE_PROJECT_DIR the project throughout.
      assertEquals(await lines(`${t.cwd}/where.log`), [t.cwd, sub, sub, t.cwd]);
      const [stop] = await readLog(`${t.cwd}/stop.log`);
      assertEquals(stop!.cwd, t.cwd);
    });
  } finally {
    await Deno.remove(elsewhere, { recursive: true });
  }
});

Deno.test("claude: Stop after a cd sees the directory the session is in", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: {
      "sub/.keep": "",
      ".claude/settings.json": settings({ Stop: [[null, logging("stop.log")]] }),
    },
    model: calling([["Bash", { command: "cd sub" }]]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    const [stop] = await readLog(`${t.cwd}/stop.log`);
    assertEquals(stop!.cwd, `${t.cwd}/sub`);
  });
});

Deno.test("llama: every shell command starts in the session directory, and hooks see it", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    profile: "llama",
    files: {
      "sub/.keep": "",
      ".claude/settings.json": settings({ PreToolUse: [["shell", logging("pre.log")]] }),
    },
    model: calling([["shell", { command: "cd sub" }], ["shell", { command: "pwd" }]], requests),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(toolResults(requests.at(-1)!)[1], `${t.cwd}\n`);
    const pre = await readLog(`${t.cwd}/pre.log`);
    assertEquals(pre.map((payload) => payload.cwd), [t.cwd, t.cwd]);
  });
});

Deno.test("claude: the Claude-format transcript's records name the directory the shell is in as they are written", async () => {
  await withInMemoryAgent({
    profile: "claude",
    files: {
      "sub/.keep": "",
      ".claude/settings.json": settings({ Stop: [[null, logging("stop.log")]] }),
    },
    model: calling([["Bash", { command: "cd sub" }], ["Bash", { command: "pwd" }]]),
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", { sessionId, prompt: text("go") });
    const [stop] = await readLog(`${t.cwd}/stop.log`);
    const records = (await lines(stop!.transcript_path as string)).map((line) => JSON.parse(line));
    const cwdOf = (predicate: (record: Record<string, unknown>) => boolean) =>
      records.filter(predicate).map((record) => record.cwd);
    const isPrompt = (r: Record<string, unknown>) =>
      r.type === "user" && typeof (r.message as { content: unknown }).content === "string";
    const isResult = (r: Record<string, unknown>) =>
      r.type === "user" && Array.isArray((r.message as { content: unknown }).content) &&
      ((r.message as { content: { type: string }[] }).content[0]?.type === "tool_result");
    assertEquals(cwdOf(isPrompt), [t.cwd]);
    // The cd's own result is written once the shell has moved, as Claude Code writes it.
    assertEquals(cwdOf(isResult), [`${t.cwd}/sub`, `${t.cwd}/sub`]);
  });
});
