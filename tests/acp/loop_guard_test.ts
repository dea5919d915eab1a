import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import {
  alreadyRefusedText,
  callKey,
  callWords,
  canonicalJson,
  type GuardedCall,
  LoopGuard,
  REFUSED_REPEAT_LIMIT,
  UNCHANGED_CALL_LIMIT,
} from "../../src/acp/turn/loop_guard.ts";

const RM = { name: "shell", input: { command: "rm -rf build" } };
const READ = { name: "fs_read", input: { file_path: "notes.txt", offset: 1 } };

Deno.test("inputs are compared as canonical JSON: key order never tells two calls apart, values do", () => {
  assertEquals(
    canonicalJson({ b: 1, a: { d: [2, { y: 1, x: 0 }], c: null } }),
    '{"a":{"c":null,"d":[2,{"x":0,"y":1}]},"b":1}',
  );
  assertEquals(
    callKey({ name: "fs_read", input: { offset: 1, file_path: "notes.txt" } }),
    callKey(READ),
  );
  assert(
    callKey({ name: "fs_read", input: { file_path: "notes.txt", offset: 2 } }) !== callKey(READ),
  );
  assert(callKey({ name: "read_file", input: READ.input }) !== callKey(READ), "the name counts");
  assert(callKey({ name: "x", input: [1, 2] }) !== callKey({ name: "x", input: [2, 1] }));
  assertEquals(canonicalJson(undefined), "undefined");
});

Deno.test("a call refused in the turn is answered at once on each repeat, and the turn ends at the limit naming it", () => {
  const guard = new LoopGuard();
  assertEquals(guard.refused(RM), undefined, "nothing was refused yet");
  guard.denied(RM, "PreToolUse:shell hook error: no deleting builds");
  guard.settled(RM, "failed", "PreToolUse:shell hook error: no deleting builds");
  for (let repeat = 1; repeat <= REFUSED_REPEAT_LIMIT; repeat++) {
    assertEquals(guard.endNotice, undefined, `still going before repeat ${repeat}`);
    assertEquals(
      guard.refused({ name: "shell", input: { command: "rm -rf build" } }),
      alreadyRefusedText("PreToolUse:shell hook error: no deleting builds"),
    );
  }
  assertEquals(
    guard.endNotice,
    `The turn was stopped: the model repeated a refused call ${REFUSED_REPEAT_LIMIT} times ` +
      '(shell {"command":"rm -rf build"}), refused earlier in this turn: PreToolUse:shell hook ' +
      "error: no deleting builds. Send a prompt to tell it what to do instead",
  );
  assertStringIncludes(alreadyRefusedText("no"), "Already refused: no\n");
});

Deno.test("another input of the refused tool is not refused by the guard", () => {
  const guard = new LoopGuard();
  guard.denied(RM, "The user denied permission to run shell");
  assertEquals(guard.refused({ name: "shell", input: { command: "rm -rf dist" } }), undefined);
  assertEquals(
    guard.refused({ name: "shell", input: { command: "rm -rf build", x: 1 } }),
    undefined,
  );
  assertEquals(guard.endNotice, undefined);
});

Deno.test("the same call with the same result is 'unchanged' from the second, and the turn ends at the limit", () => {
  const guard = new LoopGuard();
  const said: string[] = [];
  for (let call = 1; call <= UNCHANGED_CALL_LIMIT; call++) {
    assertEquals(guard.endNotice, undefined);
    said.push(guard.settled(READ, "completed", "hello\n"));
  }
  assertEquals(said, ["new", ...Array(UNCHANGED_CALL_LIMIT - 1).fill("unchanged")]);
  assertEquals(
    guard.endNotice,
    `The turn was stopped: the model made the same call ${UNCHANGED_CALL_LIMIT} times in a row ` +
      'and got the same result each time (fs_read {"file_path":"notes.txt","offset":1}). Send a ' +
      "prompt to tell it what to do next",
  );
});

Deno.test("a new result, another call between, or another status starts the count over", () => {
  const guard = new LoopGuard();
  const other = { name: "fs_glob", input: { pattern: "*.ts" } };
  const steps: [GuardedCall, string, string][] = [
    [READ, "completed", "one"],
    [READ, "completed", "one"],
    [READ, "completed", "two"],
    [READ, "completed", "two"],
    [other, "completed", "two"],
    [READ, "completed", "two"],
    [READ, "failed", "two"],
    [READ, "completed", "two"],
    [READ, "completed", "two"],
    [READ, "completed", "two"],
  ];
  const said = steps.map(([call, status, text]) => guard.settled(call, status, text));
  assertEquals(said, [
    "new",
    "unchanged",
    "new",
    "unchanged",
    "new",
    "new",
    "new",
    "new",
    "unchanged",
    "unchanged",
  ]);
  assertEquals(guard.endNotice, undefined, "never four in a row");
});

Deno.test("a repeat the guard answered breaks a run of unchanged calls", () => {
  const guard = new LoopGuard();
  guard.denied(RM, "no");
  guard.settled(READ, "completed", "x");
  guard.settled(READ, "completed", "x");
  guard.refused(RM);
  assertEquals(guard.settled(READ, "completed", "x"), "new");
});

Deno.test("a notice names a call with a long input by its start", () => {
  const words = callWords({
    name: "fs_write",
    input: { file_path: "a.txt", content: "x".repeat(500) },
  });
  assert(words.length <= "fs_write ".length + 160, words);
  assert(words.startsWith('fs_write {"file_path":"a.txt","content":"xxx'), words);
  assert(words.endsWith("…"), words);
});
