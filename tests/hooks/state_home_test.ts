import { assertEquals } from "../helpers/assert.ts";
import { homeStateDir, stateHome } from "../../src/state_home.ts";
import { transcriptPathFor } from "../../src/agent/transcript/transcript_path.ts";

const envOf = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("the state home is an absolute XDG_STATE_HOME, else HOME's .local/state", () => {
  assertEquals(stateHome(envOf({ XDG_STATE_HOME: "/s", HOME: "/h" })), "/s");
  assertEquals(stateHome(envOf({ HOME: "/h" })), "/h/.local/state");
  assertEquals(stateHome(envOf({ XDG_STATE_HOME: "", HOME: "/h" })), "/h/.local/state");
  assertEquals(stateHome(envOf({})), undefined);
  assertEquals(homeStateDir(envOf({ XDG_STATE_HOME: "/s", HOME: "/h" })), "/h/.local/state");
});

Deno.test("a relative XDG_STATE_HOME is ignored, so no transcript lands in the working directory", () => {
  assertEquals(stateHome(envOf({ XDG_STATE_HOME: "rel", HOME: "/h" })), "/h/.local/state");
  assertEquals(
    transcriptPathFor("s1", envOf({ XDG_STATE_HOME: "rel/state", HOME: "/h" })),
    "/h/.local/state/llama-agent/sessions/s1/raw.jsonl",
  );
});
