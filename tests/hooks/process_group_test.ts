import { setsidInUse, spawnWithDeno } from "../../src/os/process/process_group.ts";
import { assertEquals, assertRejectsWith } from "../helpers/assert.ts";

const spawn = (cwd: string) =>
  spawnWithDeno({ program: "/bin/sh", args: ["-c", "exit 0"] }, { cwd, env: {}, stdin: "null" });

Deno.test("a spawn in a missing directory fails alone: later spawns still go through setsid", async () => {
  const first = spawn("/");
  await first.status;
  await Promise.all([first.stdout.cancel(), first.stderr.cancel()]);
  const setsid = setsidInUse();
  await assertRejectsWith(
    () => Promise.resolve().then(() => spawn("/nonexistent/directory")),
    Deno.errors.NotFound,
  );
  assertEquals(setsidInUse(), setsid, "the missing cwd did not turn setsid off");
  const after = spawn("/");
  assertEquals((await after.status).code, 0);
  await Promise.all([after.stdout.cancel(), after.stderr.cancel()]);
});
