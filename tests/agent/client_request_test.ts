/**
 * What a client's error says about a file, from the errors clients really send: a handler built
 * on the ACP SDK that throws (Node's and Deno's own errors, turned into -32603 by the SDK itself,
 * in memory), acpx's -32002, Zed's string `data`, and codes that mean something else.
 */
import * as acp from "@agentclientprotocol/sdk";
import { readFile } from "node:fs/promises";
import { assertEquals } from "../helpers/assert.ts";
import { clientErrorMessage, isNotFoundError } from "../../src/agent/client_request.ts";
import { withTempDir } from "./temp_dir.ts";

/**
 * The error the agent gets when an SDK-built client's `fs/read_text_file` handler runs `read`
 * on `path` and it throws: converted by the SDK, not built by hand.
 */
async function sdkClientError(
  path: string,
  read: (path: string) => Promise<string>,
): Promise<unknown> {
  const client = acp.client().onRequest("fs/read_text_file", async ({ params }) => ({
    content: await read(params.path),
  }));
  return await acp.agent().connectWith(client, async (cx) => {
    try {
      await cx.request("fs/read_text_file", { sessionId: "s", path });
    } catch (error) {
      return error;
    }
    throw new Error(`Reading "${path}" did not fail`);
  });
}

Deno.test("an SDK-built client's thrown ENOENT (-32603, the message in data.details) is a missing file", async () => {
  await withTempDir({}, async (dir) => {
    const error = await sdkClientError(`${dir}/new.txt`, (path) => readFile(path, "utf8"));
    assertEquals(
      error instanceof acp.RequestError ? [error.code, error.message, error.data] : error,
      [-32603, "Internal error", {
        details: `ENOENT: no such file or directory, open '${dir}/new.txt'`,
      }],
    );
    assertEquals(isNotFoundError(error), true);
    assertEquals(
      clientErrorMessage(error),
      `Internal error: ENOENT: no such file or directory, open '${dir}/new.txt' (error -32603)`,
    );
  });
});

Deno.test("an SDK-built client's thrown Deno.errors.NotFound is a missing file", async () => {
  await withTempDir({}, async (dir) => {
    const error = await sdkClientError(`${dir}/new.txt`, (path) => Deno.readTextFile(path));
    assertEquals(isNotFoundError(error), true);
  });
});

Deno.test("an SDK-built client's other internal errors (a directory, a refusal) are not a missing file", async () => {
  await withTempDir({ "src/a.ts": "" }, async (dir) => {
    const directory = await sdkClientError(`${dir}/src`, (path) => readFile(path, "utf8"));
    assertEquals(isNotFoundError(directory), false, clientErrorMessage(directory));
    const refused = await sdkClientError(`${dir}/src/a.ts`, () => {
      throw new Error("Permission denied: the file is outside the workspace");
    });
    assertEquals(isNotFoundError(refused), false);
    assertEquals(
      clientErrorMessage(refused),
      "Internal error: Permission denied: the file is outside the workspace (error -32603)",
    );
  });
});

Deno.test("-32002 (acpx) is a missing file; a string data (Zed) is read like the SDK's details", () => {
  assertEquals(isNotFoundError(acp.RequestError.resourceNotFound("/p/a.txt")), true);
  const zed = new acp.RequestError(
    -32603,
    "Internal error",
    "No such file or directory (os error 2)",
  );
  assertEquals(isNotFoundError(zed), true);
  assertEquals(
    clientErrorMessage(zed),
    "Internal error: No such file or directory (os error 2) (error -32603)",
  );
  const coded = new acp.RequestError(-32603, "Internal error", { code: "ENOENT" });
  assertEquals(isNotFoundError(coded), true);
  const windows = new acp.RequestError(-32603, "The system cannot find the file specified.");
  assertEquals(isNotFoundError(windows), true);
});

Deno.test("a code that means something else is never a missing file, whatever its text", () => {
  // A client that advertised fs but has no handler: the SDK's own answer.
  assertEquals(isNotFoundError(acp.RequestError.methodNotFound("fs/read_text_file")), false);
  assertEquals(isNotFoundError(acp.RequestError.invalidParams({ details: "not found" })), false);
  assertEquals(isNotFoundError(acp.RequestError.requestCancelled()), false);
});

Deno.test("an internal error whose message already holds its details says them once", () => {
  const error = new acp.RequestError(-32603, "Internal error: disk full", { details: "disk full" });
  assertEquals(clientErrorMessage(error), "Internal error: disk full (error -32603)");
  assertEquals(isNotFoundError(error), false);
});
