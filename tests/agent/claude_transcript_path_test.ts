/**
 * Where the Claude-format transcript lives (claude-compat.md §8): Claude Code's project directory
 * for the cwd under an absolute HOME, and a name the file system takes for any cwd.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import {
  claudeProjectSlug,
  claudeTranscriptHome,
  claudeTranscriptPathFor,
} from "../../src/agent/transcript/claude_transcript_path.ts";
import { withTempDir } from "./temp_dir.ts";

Deno.test("the project directory is the cwd with each / made -, under ~/.claude/projects", () => {
  assertEquals(claudeProjectSlug("/tmp/x/proj"), "-tmp-x-proj");
  assertEquals(claudeProjectSlug("/home/me/my app.v2"), "-home-me-my-app-v2");
  assertEquals(
    claudeTranscriptPathFor("/home/me", "/tmp/x/proj", "abc"),
    "/home/me/.claude/projects/-tmp-x-proj/abc.jsonl",
  );
});

Deno.test("a cwd too deep for one directory name is cut to 200 characters and told apart by a hash", async () => {
  const deep = `/${"a".repeat(150)}/${"b".repeat(150)}`;
  const slug = claudeProjectSlug(deep);
  assert(slug.startsWith(`-${"a".repeat(150)}-bbb`));
  assert(slug !== claudeProjectSlug(`${deep}c`), "two deep cwds sharing 200 characters differ");
  await withTempDir({}, async (dir) => {
    // The file system takes it as one directory's name.
    await Deno.mkdir(`${dir}/${slug}`);
  });
});

Deno.test("without an absolute HOME there is no home for the transcript", () => {
  assertEquals(claudeTranscriptHome("/home/me"), "/home/me");
  assertEquals(claudeTranscriptHome(undefined), undefined);
  assertEquals(claudeTranscriptHome(""), undefined);
  assertEquals(claudeTranscriptHome("home/me"), undefined);
});
