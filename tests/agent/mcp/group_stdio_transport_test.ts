import { GroupStdioTransport } from "../../../src/agent/mcp/group_stdio_transport.ts";
import { assertEquals } from "../../helpers/assert.ts";
import { within } from "../../helpers/within.ts";
import { livingPidsMatching } from "../../hooks/process_probe.ts";

Deno.test("closing right after the start ends the server, even before setsid made its group", async () => {
  const marker = `transport-race-${crypto.randomUUID()}`;
  for (let i = 0; i < 20; i++) {
    const transport = new GroupStdioTransport({
      command: "/bin/sh",
      args: ["-c", `sleep 600; : ${marker}`],
      env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
      cwd: "/",
      killGraceMs: 500,
    });
    await transport.start();
    const closed = await within(transport.close().then(() => true), 5_000);
    if (!closed) {
      for (const pid of await livingPidsMatching(marker)) Deno.kill(pid, "SIGKILL");
      throw new Error(`close() did not end the server (attempt ${i + 1})`);
    }
  }
  assertEquals(await livingPidsMatching(marker), []);
});
