import { RequestError } from "@agentclientprotocol/sdk";
import { assert, assertEquals, assertLess } from "../helpers/assert.ts";
import { ClientShellRunner } from "../../src/agent/shell/client_shell_runner.ts";
import { fakeClient } from "./fake_client.ts";

const ids = { sessionId: "s1", terminalId: "term-1" };

function never(): Promise<never> {
  return new Promise(() => {});
}

Deno.test("a client terminal runs create → wait_for_exit → output → release", async () => {
  const shown: string[] = [];
  const client = fakeClient({
    "terminal/create": () => ({ terminalId: "term-1" }),
    "terminal/wait_for_exit": () => ({ exitCode: 3, signal: null }),
    "terminal/output": () => ({ output: "hello\n", truncated: false }),
    "terminal/release": () => null,
  });
  const runner = new ClientShellRunner({ sessionId: "s1", request: client.request });
  const result = await runner.run({
    command: "echo hello; exit 3",
    cwd: "/proj",
    timeoutMs: 10_000,
    onTerminal: (id) => {
      shown.push(`${id} shown before wait: ${client.methods().length === 1}`);
    },
  });
  assertEquals(client.calls, [
    {
      method: "terminal/create",
      params: {
        sessionId: "s1",
        command: "/bin/sh",
        args: ["-c", "echo hello; exit 3"],
        cwd: "/proj",
        outputByteLimit: 65536,
      },
    },
    { method: "terminal/wait_for_exit", params: ids },
    { method: "terminal/output", params: ids },
    { method: "terminal/release", params: ids },
  ]);
  assertEquals(shown, ["term-1 shown before wait: true"]);
  assert(result.kind === "exited");
  assertEquals(
    { ...result, durationMs: 0 },
    {
      kind: "exited",
      exitCode: 3,
      signal: null,
      output: "hello\n",
      truncated: false,
      durationMs: 0,
      terminalId: "term-1",
    },
  );
});

Deno.test("a cancel kills the client terminal, reads its output and releases it", async () => {
  const client = fakeClient({
    "terminal/create": () => ({ terminalId: "term-1" }),
    "terminal/wait_for_exit": never,
    "terminal/kill": () => null,
    "terminal/output": () => ({ output: "partial", truncated: true }),
    "terminal/release": () => null,
  });
  const runner = new ClientShellRunner({ sessionId: "s1", request: client.request });
  const controller = new AbortController();
  const started = performance.now();
  const running = runner.run({
    command: "sleep 100",
    cwd: "/p",
    timeoutMs: 60_000,
    signal: controller.signal,
  });
  setTimeout(() => controller.abort(), 20);
  const result = await running;
  assertLess(performance.now() - started, 500);
  assertEquals(client.methods(), [
    "terminal/create",
    "terminal/wait_for_exit",
    "terminal/kill",
    "terminal/output",
    "terminal/release",
  ]);
  assert(result.kind === "cancelled");
  assertEquals(result.output, "partial");
  assertEquals(result.truncated, true);
  assertEquals(result.terminalId, "term-1");
});

Deno.test("a timeout kills the client terminal, and failures of kill and output do not leak", async () => {
  const client = fakeClient({
    "terminal/create": () => ({ terminalId: "term-1" }),
    "terminal/wait_for_exit": never,
    "terminal/kill": () => {
      throw new RequestError(-32603, "already gone");
    },
    "terminal/output": () => {
      throw new RequestError(-32603, "no output");
    },
    "terminal/release": () => null,
  });
  const runner = new ClientShellRunner({ sessionId: "s1", request: client.request });
  const result = await runner.run({ command: "sleep 100", cwd: "/p", timeoutMs: 30 });
  assertEquals(client.methods(), [
    "terminal/create",
    "terminal/wait_for_exit",
    "terminal/kill",
    "terminal/output",
    "terminal/release",
  ]);
  assert(result.kind === "timed_out");
  assertEquals(result.output, "");
});

Deno.test("a client that refuses the terminal gives a failed run and nothing to release", async () => {
  const client = fakeClient({
    "terminal/create": () => {
      throw new RequestError(-32601, "Method not found");
    },
  });
  const runner = new ClientShellRunner({ sessionId: "s1", request: client.request });
  const result = await runner.run({ command: "ls", cwd: "/p", timeoutMs: 1000 });
  assert(result.kind === "failed");
  assertEquals(
    result.message,
    "Cannot run the command in the client's terminal: Method not found (error -32601)",
  );
  assertEquals(client.methods(), ["terminal/create"]);
});

Deno.test("a failing wait_for_exit still kills and releases the terminal", async () => {
  const client = fakeClient({
    "terminal/create": () => ({ terminalId: "term-1" }),
    "terminal/wait_for_exit": () => {
      throw new RequestError(-32603, "lost it");
    },
    "terminal/kill": () => null,
    "terminal/release": () => null,
  });
  const runner = new ClientShellRunner({ sessionId: "s1", request: client.request });
  const result = await runner.run({ command: "ls", cwd: "/p", timeoutMs: 1000 });
  assert(result.kind === "failed");
  assertEquals(
    result.message,
    "Cannot wait for the command in the client's terminal: lost it (error -32603)",
  );
  assertEquals(client.methods(), [
    "terminal/create",
    "terminal/wait_for_exit",
    "terminal/kill",
    "terminal/release",
  ]);
});

Deno.test("an already aborted signal sends nothing to the client", async () => {
  const client = fakeClient({});
  const runner = new ClientShellRunner({ sessionId: "s1", request: client.request });
  const result = await runner.run({
    command: "ls",
    cwd: "/p",
    timeoutMs: 1000,
    signal: AbortSignal.abort(),
  });
  assertEquals(result.kind, "cancelled");
  assertEquals(client.calls, []);
});

Deno.test("a client terminal's env-file $NAME is looked up in the environment the runner is given, not the agent's own", async () => {
  const client = fakeClient({
    "terminal/create": () => ({ terminalId: "term-1" }),
    "terminal/wait_for_exit": () => ({ exitCode: 0, signal: null }),
    "terminal/output": () => ({ output: "", truncated: false }),
    "terminal/release": () => null,
  });
  // PATH is set in the agent's own environment; the runner's lacks it, as it lacks a key.
  const runner = new ClientShellRunner({
    sessionId: "s1",
    request: client.request,
    env: { GREETING: "hi" },
  });
  await runner.run({
    command: "true",
    cwd: "/proj",
    timeoutMs: 10_000,
    sessionEnv: [
      { name: "A", value: [{ kind: "variable", name: "GREETING" }] },
      { name: "B", value: [{ kind: "text", text: "[" }, { kind: "variable", name: "PATH" }] },
    ],
  });
  const create = client.calls.find((call) => call.method === "terminal/create");
  assertEquals((create?.params as { env?: unknown }).env, [
    { name: "A", value: "hi" },
    { name: "B", value: "[" },
  ]);
});
