/**
 * The project's instructions (AGENTS.md; CLAUDE.md too under the claude profile) in the session
 * cwd reach the model in its system prompt; the log says which files were read; instructions
 * over the 16 KiB cap are cut, with a notice to the user; a FIFO, a directory or a link out of
 * the allowed roots named AGENTS.md is a clear log line, never a hang. InstructionsLoaded is
 * never fired.
 */
import type { GenerateRequest } from "../../src/model/model.ts";
import { MAX_PROJECT_INSTRUCTIONS_BYTES } from "../../src/acp/session/project_instructions.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { waitUntil } from "../helpers/wait_until.ts";
import { within } from "../helpers/within.ts";
import { makeFifo, releaseFifo } from "../hooks/special_files.ts";
import { reply } from "./fake_models.ts";
import { exists, recordingModel, text } from "./claude_session_fixture.ts";
import { settings } from "./hook_fixtures.ts";
import { type InMemoryAgent, noticesOf, withInMemoryAgent } from "./in_memory_agent.ts";

function systemText(request: GenerateRequest | undefined): string {
  const first = request?.conversation[0];
  assert(first?.role === "system", "the conversation starts with the system prompt");
  return first.text;
}

/**
 * One prompt in a new session, once the session's start notices are in (they follow the
 * commands update, sent after the session/new answer); the system prompt the model read.
 */
async function promptOnce(t: InMemoryAgent, requests: GenerateRequest[]): Promise<string> {
  const sessionId = await t.newSession();
  await waitUntil(
    () => t.kinds(sessionId).includes("available_commands_update"),
    "the session's start updates",
  );
  const answer = await t.agent.request("session/prompt", { sessionId, prompt: text("hi") });
  assertEquals(answer.stopReason, "end_turn");
  return systemText(requests[0]);
}

Deno.test("a session whose cwd has AGENTS.md: the model reads it in its system prompt, the log names it", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    files: {
      "AGENTS.md": "# Rules\nRun `make check` before you finish.\n",
      // Registered, never emitted: reading instructions fires nothing.
      ".claude/settings.json": settings({ InstructionsLoaded: [[null, "touch loaded.marker"]] }),
    },
    model: recordingModel([reply("ok")], requests),
  }, async (t) => {
    const system = await promptOnce(t, requests);
    assertStringIncludes(system, "Instructions from AGENTS.md:\n\n# Rules\nRun `make check`");
    const logged = t.logs.find((line) => line.startsWith("Project instructions:"));
    assertStringIncludes(logged ?? "", `AGENTS.md (44 bytes) from "${t.cwd}"`);
    assertEquals(await exists(`${t.cwd}/loaded.marker`), false, "InstructionsLoaded never fires");
    assertEquals(noticesOf(t.updates), []);
  });
});

Deno.test("without instruction files nothing is logged about them and the system prompt has none", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({ model: recordingModel([reply("ok")], requests) }, async (t) => {
    const system = await promptOnce(t, requests);
    assert(!system.includes("Instructions from"), system);
    assertEquals(t.logs.filter((line) => line.includes("Project instructions")), []);
  });
});

Deno.test("CLAUDE.md is read under the claude profile only, before AGENTS.md", async () => {
  const files = { "AGENTS.md": "Agents say A.\n", "CLAUDE.md": "Claude says C.\n" };
  const llama: GenerateRequest[] = [];
  await withInMemoryAgent({ files, model: recordingModel([reply("ok")], llama) }, async (t) => {
    const system = await promptOnce(t, llama);
    assertStringIncludes(system, "Agents say A.");
    assert(!system.includes("Claude says C."), "the llama profile does not read CLAUDE.md");
  });
  const claude: GenerateRequest[] = [];
  await withInMemoryAgent(
    { files, profile: "claude", model: recordingModel([reply("ok")], claude) },
    async (t) => {
      const system = await promptOnce(t, claude);
      const [c, a] = [system.indexOf("Claude says C."), system.indexOf("Agents say A.")];
      assert(c >= 0 && a > c, `CLAUDE.md, then AGENTS.md: ${system}`);
    },
  );
});

Deno.test("instructions over the 16 KiB cap are cut at a line end, the model told so, the user sent a notice", async () => {
  const line = "Keep functions short and name them after what they do.\n"; // 56 bytes
  const big = line.repeat(Math.ceil((MAX_PROJECT_INSTRUCTIONS_BYTES * 2) / line.length));
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent(
    { files: { "AGENTS.md": big }, model: recordingModel([reply("ok")], requests) },
    async (t) => {
      const system = await promptOnce(t, requests);
      const kept = Math.floor(MAX_PROJECT_INSTRUCTIONS_BYTES / line.length) * line.length;
      const shown = system.slice(system.indexOf("Instructions from AGENTS.md:"));
      assertStringIncludes(shown, line.repeat(3));
      assertEquals(shown.split(line.trimEnd()).length - 1, kept / line.length);
      assertStringIncludes(shown, "[AGENTS.md is cut here, at the size limit: read the file");
      const notices = noticesOf(t.updates);
      assertEquals(notices.length, 1);
      assertStringIncludes(
        notices[0]!.trimStart(),
        `AGENTS.md is cut: the project instructions are read up to 16 KiB in all, and it has ` +
          `${big.length} bytes, so the model sees its first ${kept} bytes`,
      );
      assert(t.logs.some((l) => l.includes(`AGENTS.md (${kept} of ${big.length} bytes)`)));
      // A notice for the user, not a turn of the conversation.
      assertEquals(requests[0]!.conversation.map((item) => item.role), ["system", "user"]);
    },
  );
});

interface SpecialFile {
  readonly kind: string;
  readonly make: (path: string) => Promise<void>;
  readonly reason: string;
}

const SPECIAL_FILES: readonly SpecialFile[] = [
  { kind: "a FIFO", make: makeFifo, reason: "it is a FIFO, not a regular file" },
  {
    kind: "a directory",
    make: (path) => Deno.mkdir(path),
    reason: "it is a directory, not a regular file",
  },
  {
    kind: "a link out of the allowed roots",
    make: (path) => Deno.symlink("/etc/hostname", path),
    reason: 'it resolves to "/etc/hostname", which is outside the allowed directories',
  },
];

for (const special of SPECIAL_FILES) {
  Deno.test(`an AGENTS.md that is ${special.kind}: the prompt is answered, the log says why`, async () => {
    const requests: GenerateRequest[] = [];
    await withInMemoryAgent({ model: recordingModel([reply("ok")], requests) }, async (t) => {
      const path = `${t.cwd}/AGENTS.md`;
      await special.make(path);
      try {
        const system = await within(promptOnce(t, requests), 10_000);
        assert(system !== undefined, "the session started and answered without waiting on it");
        assert(!system.includes("Instructions from"), system);
        const expected = `Cannot read the project instructions in "${path}": ${special.reason}`;
        assert(t.logs.some((line) => line.startsWith(expected)), t.logs.join("\n"));
        assert(noticesOf(t.updates).some((notice) => notice.trimStart().startsWith(expected)));
      } finally {
        if (special.kind === "a FIFO") releaseFifo(path);
      }
    });
  });
}

Deno.test("an AGENTS.md that links into HOME, outside the project, is not read: the model never sees it, the log and a notice say why", async () => {
  const requests: GenerateRequest[] = [];
  await withInMemoryAgent({
    model: recordingModel([reply("ok")], requests),
    homeFiles: { ".aws/credentials": "aws_secret_access_key = SECRET-IN-HOME\n" },
  }, async (t) => {
    const path = `${t.cwd}/AGENTS.md`;
    await Deno.symlink(`${t.home}/.aws/credentials`, path);
    const system = await promptOnce(t, requests);
    assert(!system.includes("SECRET-IN-HOME"), system);
    const expected = `Cannot read the project instructions in "${path}": it resolves to ` +
      `"${t.home}/.aws/credentials", which is outside the project ("${t.cwd}"), and a link out ` +
      "of the project is not followed for instructions the model reads unasked";
    assert(t.logs.some((line) => line.startsWith(expected)), t.logs.join("\n"));
    assert(noticesOf(t.updates).some((notice) => notice.trimStart().startsWith(expected)));
  });
});
