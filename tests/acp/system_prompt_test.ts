/**
 * The system prompt's order: what every session of a profile shares first, so that its
 * evaluated state serves every project, then where this session works and what it was told.
 */
import { SUMMARY_HEADING, systemPromptItem } from "../../src/acp/turn/system_prompt.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";

Deno.test("the shared part is the same in every project and names none; the project's part follows, then the session's own", () => {
  const profile = compatProfile("llama");
  const here = systemPromptItem({ cwd: "/work/app", additionalDirectories: [] }, profile);
  const there = systemPromptItem({
    cwd: "/home/someone/other",
    additionalDirectories: ["/data"],
    projectInstructions: ["Use tabs."],
    startContext: ["Branch: main"],
    contextSummary: "We fixed the parser.",
  }, profile);
  const shared = (item: typeof here) => item.text.slice(0, item.sharedLength);
  assertEquals(shared(here), shared(there));
  assert(!shared(here).includes("/work/app"), shared(here));
  assertEquals(
    here.text.slice(here.sharedLength!),
    "\n\nYou work in /work/app. Relative paths start there.",
  );
  // The project's part: where it works and what its instructions say; then the session's own.
  assertEquals(
    there.text.slice(there.sharedLength!, there.projectLength!),
    "\n\nYou work in /home/someone/other. You may also use files under /data. Relative paths " +
      "start there.\n\nUse tabs.",
  );
  assertEquals(
    there.text.slice(there.projectLength!),
    `\n\nBranch: main\n\n${SUMMARY_HEADING}We fixed the parser.`,
  );
  assertEquals(here.projectLength, here.text.length, "nothing of its own yet");
});

Deno.test("each profile's shared part names its own tools", () => {
  const place = { cwd: "/p", additionalDirectories: [] };
  const llama = systemPromptItem(place, compatProfile("llama"));
  const claude = systemPromptItem(place, compatProfile("claude"));
  assertStringIncludes(
    llama.text.slice(0, llama.sharedLength),
    "Look at files with fs_read, fs_glob and fs_grep rather than shell.",
  );
  assertStringIncludes(
    claude.text.slice(0, claude.sharedLength),
    "Look at files with Read, Glob and Grep rather than Bash.",
  );
});
