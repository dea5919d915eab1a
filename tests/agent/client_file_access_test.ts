import { RequestError } from "@agentclientprotocol/sdk";
import { assertEquals } from "../helpers/assert.ts";
import { ClientFileAccess } from "../../src/agent/files/client_file_access.ts";
import { fakeClient } from "./fake_client.ts";

Deno.test("a client read sends fs/read_text_file with an absolute path, line and limit", async () => {
  const client = fakeClient({ "fs/read_text_file": () => ({ content: "two\n" }) });
  const files = new ClientFileAccess({ sessionId: "s1", cwd: "/proj", request: client.request });
  assertEquals(await files.readTextFile("src/a.ts", { line: 2, limit: 1 }), {
    ok: true,
    content: "two\n",
  });
  assertEquals(await files.readTextFile("/etc/hosts"), { ok: true, content: "two\n" });
  assertEquals(client.calls, [
    {
      method: "fs/read_text_file",
      params: { sessionId: "s1", path: "/proj/src/a.ts", line: 2, limit: 1 },
    },
    { method: "fs/read_text_file", params: { sessionId: "s1", path: "/etc/hosts" } },
  ]);
});

Deno.test("a client write sends fs/write_text_file with an absolute path", async () => {
  const client = fakeClient({ "fs/write_text_file": () => null });
  const files = new ClientFileAccess({ sessionId: "s1", cwd: "/proj", request: client.request });
  assertEquals(await files.writeTextFile("../x.txt", "content"), { ok: true });
  assertEquals(client.calls, [
    {
      method: "fs/write_text_file",
      params: { sessionId: "s1", path: "/x.txt", content: "content" },
    },
  ]);
});

Deno.test("client errors become failures; a not-found error is recognised as such", async () => {
  const answers = [
    new RequestError(-32002, "Resource not found"),
    new RequestError(-32603, "Internal error: No such file or directory (os error 2)"),
    new RequestError(-32603, "Internal error: permission denied"),
  ];
  const client = fakeClient({
    "fs/read_text_file": () => {
      throw answers.shift();
    },
  });
  const files = new ClientFileAccess({ sessionId: "s", cwd: "/p", request: client.request });
  assertEquals(await files.readTextFile("a"), {
    ok: false,
    failure: "not_found",
    message: 'Cannot read "a": Resource not found (error -32002)',
  });
  const second = await files.readTextFile("a");
  assertEquals(second.ok ? "ok" : second.failure, "not_found");
  assertEquals(await files.readTextFile("a"), {
    ok: false,
    failure: "failed",
    message: 'Cannot read "a": Internal error: permission denied (error -32603)',
  });
});

Deno.test("a client answer without content is a failure, not a crash", async () => {
  const client = fakeClient({ "fs/read_text_file": () => ({ text: "oops" }) });
  const files = new ClientFileAccess({ sessionId: "s", cwd: "/p", request: client.request });
  assertEquals(await files.readTextFile("a"), {
    ok: false,
    failure: "failed",
    message: `Cannot read "a": the client's answer has no "content" string`,
  });
});
