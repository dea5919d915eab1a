import { AfterResponse } from "../../src/acp/after_response.ts";
import { assertEquals } from "../helpers/assert.ts";

Deno.test("work left for after the response runs on the next turn of the event loop, in order", async () => {
  const after = new AfterResponse();
  const ran: string[] = [];
  after.run(() => ran.push("first"));
  after.run(() => ran.push("second"));
  await Promise.resolve();
  assertEquals(ran, [], "not within the handler's own turn");
  await new Promise((resolve) => setTimeout(resolve, 0));
  assertEquals(ran, ["first", "second"]);
});

// The sanitizer fails this test if a timer is left: the shutdown must leave none behind.
Deno.test("work not yet run when the agent shuts down is dropped, and leaves no timer behind", async () => {
  const after = new AfterResponse();
  const ran: string[] = [];
  after.run(() => ran.push("early"));
  await new Promise((resolve) => setTimeout(resolve, 0));
  after.run(() => ran.push("late"));
  after.cancel();
  await new Promise((resolve) => setTimeout(resolve, 5));
  assertEquals(ran, ["early"]);
});
