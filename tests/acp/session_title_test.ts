import type { ContentBlock } from "@agentclientprotocol/sdk";
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { withInMemoryAgent } from "./in_memory_agent.ts";
import { printing, settings } from "./hook_fixtures.ts";
import { sessionTitle, TITLE_LENGTH } from "../../src/agent/transcript/session_title.ts";
import { transcriptPathFor } from "../../src/agent/transcript/transcript_path.ts";

Deno.test("a session is titled with the first line of the user's words, whatever a UserPromptSubmit hook adds", async () => {
  await withInMemoryAgent({
    files: {
      ".claude/settings.json": settings({
        UserPromptSubmit: [[
          null,
          printing({
            hookSpecificOutput: {
              hookEventName: "UserPromptSubmit",
              additionalContext: "The build is red.",
            },
          }),
        ]],
      }),
    },
    script: { turns: [{ text: "ok" }] },
  }, async (t) => {
    const sessionId = await t.newSession();
    await t.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "\n  Fix the login bug\nit started on Monday" }],
    });
    const { sessions } = await t.agent.request("session/list", { cwd: t.cwd });
    assertEquals(sessions.map((s) => s.title), ["Fix the login bug"]);
    // The model did read the hook's words: only the title leaves them out.
    assertStringIncludes(
      await Deno.readTextFile(transcriptPathFor(sessionId, t.env)),
      "The build is red.",
    );
  });
});

Deno.test("a title leaves out mentioned files' contents, names a prompt of mentions alone, and is cut to length", () => {
  assertEquals(
    sessionTitle([
      { type: "resource", resource: { uri: "file:///p/notes.md", text: "# Notes" } },
      { type: "text", text: "Summarize this" },
    ]),
    "Summarize this",
  );
  assertEquals(
    sessionTitle([{ type: "resource_link", uri: "file:///p/a.ts", name: "a.ts" }]),
    "@a.ts",
  );
  assertEquals(sessionTitle([{ type: "text", text: "  \n" }]), null);
  const long = sessionTitle([{ type: "text", text: "x".repeat(200) }]);
  assertEquals(long?.length, TITLE_LENGTH);
  assertEquals(long?.endsWith("…"), true);
});

Deno.test("a title never splits a character, names a folder mention by its name, and passes over malformed blocks", () => {
  const emoji = "😀";
  const long = "a".repeat(TITLE_LENGTH - 2) + emoji + "tail";
  const title = sessionTitle([{ type: "text", text: long }])!;
  assertEquals(Array.from(title).length, TITLE_LENGTH);
  assertEquals(title, "a".repeat(TITLE_LENGTH - 2) + emoji + "…");
  assertEquals(
    sessionTitle([{ type: "resource", resource: { uri: "file:///work/src/", text: "" } }]),
    "@src",
  );
  // As a transcript may hold them: the schema there checks only each block's type.
  const malformed = [{ type: "text" }, { type: "resource" }] as unknown as ContentBlock[];
  assertEquals(sessionTitle(malformed), null);
});
