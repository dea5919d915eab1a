/**
 * Session directories whose transcript is not a regular file within the limit: a FIFO, a link to
 * `/dev/zero`, a file of gigabytes. `session/list` still answers, with every other session: it
 * logs a transcript it cannot read and lists one too large to load, from its first records only.
 * `session/load` answers an error naming the file and why. Nothing waits on the FIFO, and
 * nothing reads the device or the whole file.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { within } from "../helpers/within.ts";
import { transcriptPathFor } from "../../src/agent/transcript/transcript_path.ts";
import { linkToDevZero, makeFifo, releaseFifo } from "../hooks/special_files.ts";
import { type InMemoryAgent, withInMemoryAgent } from "./in_memory_agent.ts";

interface SpecialTranscript {
  readonly kind: string;
  /** Makes the transcript of session "special" at `path`, in `cwd`. */
  readonly make: (path: string, cwd: string) => Promise<void>;
  readonly reason: string;
  /** `session/list` lists it: its start is sound. */
  readonly listed: boolean;
}

const TEN_GB = 10 * 1024 ** 3;

const SPECIAL_TRANSCRIPTS: readonly SpecialTranscript[] = [
  { kind: "a FIFO", make: makeFifo, reason: "it is a FIFO, not a regular file", listed: false },
  {
    kind: "a link to /dev/zero",
    make: linkToDevZero,
    reason: "it is a character device, not a regular file",
    listed: false,
  },
  {
    kind: "a 10 GB file",
    // A sound start, then sparse zeros: no disk space, and the size alone refuses a load.
    make: async (path, cwd) => {
      const start = [
        { type: "session", sessionId: "special", cwd, additionalDirectories: [], createdAt: "" },
        { type: "prompt", prompt: [{ type: "text", text: "big" }], text: "big" },
      ];
      await Deno.writeTextFile(path, start.map((r) => JSON.stringify(r) + "\n").join(""));
      using file = await Deno.open(path, { write: true });
      await file.truncate(TEN_GB);
    },
    reason: `it is over the 256 MiB limit (${TEN_GB} bytes)`,
    listed: true,
  },
];

/** A real session of `t`, plus the directory of session "special" whose transcript `make` makes. */
async function withSpecialSession(
  special: SpecialTranscript,
  fn: (t: InMemoryAgent, sessionId: string, path: string) => Promise<void>,
): Promise<void> {
  await withInMemoryAgent({}, async (t) => {
    const sessionId = await t.newSession();
    const path = transcriptPathFor("special", t.env);
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await special.make(path, t.cwd);
    try {
      await fn(t, sessionId, path);
    } finally {
      // Releases a read stuck in the FIFO's open (the code as it was), so the test can end.
      if (special.kind === "a FIFO") releaseFifo(path);
    }
  });
}

for (const special of SPECIAL_TRANSCRIPTS) {
  const listedOrLogged = special.listed ? "listed from its start" : "logged";
  Deno.test(`session/list with a transcript that is ${special.kind}: the other sessions are listed, that one is ${listedOrLogged}`, async () => {
    await withSpecialSession(special, async (t, sessionId, path) => {
      const listed = await within(t.agent.request("session/list", {}), 10_000);
      assert(listed !== undefined, "session/list did not answer");
      if (special.listed) {
        assertEquals(
          listed.sessions.map((s) => [s.sessionId, s.title]).sort(),
          [["special", "big"], [sessionId, null]].sort(),
        );
        assertEquals(t.logs.filter((line) => line.includes(path)), []);
      } else {
        assertEquals(listed.sessions.map((s) => s.sessionId), [sessionId]);
        assertEquals(
          t.logs.filter((line) => line.includes(path)),
          [`Cannot list a session: Cannot read the transcript "${path}": ${special.reason}`],
        );
      }
    });
  });

  Deno.test(`session/load of a transcript that is ${special.kind} answers an error naming it`, async () => {
    await withSpecialSession(special, async (t, sessionId, path) => {
      const loaded = within(
        t.agent.request("session/load", { sessionId: "special", cwd: t.cwd, mcpServers: [] })
          .then(() => "answered", (error: unknown) => error),
        10_000,
      );
      const error = await loaded;
      assert(error !== undefined, "session/load did not answer");
      assert(error instanceof Error, String(error));
      assertStringIncludes(
        error.message,
        `Cannot read the transcript "${path}": ${special.reason}`,
      );
      // The agent goes on: the other session still answers.
      await t.agent.request("session/close", { sessionId });
    });
  });
}
