/**
 * The real agent over real stdio with a client built on the ACP SDK that serves `fs/*`, as an
 * editor's would: its handlers read and write with node:fs, so a missing file is the real ENOENT
 * the SDK turns into -32603 "Internal error" with the message in `data.details`. A Write of a new
 * file must create it, asking the client once whether it exists, in both profiles and through a
 * permission prompt; a client that answers -32002 (acpx) must get the same.
 */
import * as acp from "@agentclientprotocol/sdk";
import { readFile, writeFile } from "node:fs/promises";
import { assertEquals } from "../helpers/assert.ts";
import { pinnedEnv } from "../helpers/pinned_env.ts";
import { LAUNCHER, withTempProject } from "../helpers/run_cli.ts";
import { within } from "../helpers/within.ts";

type MissingFile = "thrown ENOENT" | "-32002";

interface FilesRun {
  /** Every path the agent asked the client to read, in order. */
  readonly reads: readonly string[];
  readonly writes: readonly string[];
  readonly permissionAsked: number;
  /** The status of each tool call's last update. */
  readonly statuses: readonly string[];
  readonly stopReason: string;
  readonly stderr: string;
}

/** Runs one prompt whose scripted model calls `tool` once; the client answers as `missing` says. */
async function runWithSdkClient(
  dir: string,
  options: { readonly profile: "claude" | "llama"; readonly missing: MissingFile },
  tool: { readonly name: string; readonly input: unknown },
): Promise<FilesRun> {
  const project = `${dir}/project`;
  const script = JSON.stringify({ turns: [{ toolCalls: [tool] }, { text: "written" }] });
  await Deno.writeTextFile(`${project}/script.json`, script);
  const child = new Deno.Command(LAUNCHER, {
    args: ["acp", "--model", "scripted:script.json", "--compat", options.profile],
    cwd: project,
    clearEnv: true,
    env: pinnedEnv(`${dir}/home`),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const reads: string[] = [];
  const writes: string[] = [];
  const statuses = new Map<string, string>();
  let permissionAsked = 0;
  const client = acp.client()
    .onRequest("fs/read_text_file", async ({ params }) => {
      reads.push(params.path);
      if (options.missing === "-32002") {
        const exists = await Deno.stat(params.path).then(() => true, () => false);
        if (!exists) throw acp.RequestError.resourceNotFound(params.path);
      }
      // A missing file throws Node's own ENOENT, which the SDK answers as -32603.
      return { content: await readFile(params.path, "utf8") };
    })
    .onRequest("fs/write_text_file", async ({ params }) => {
      writes.push(params.path);
      await writeFile(params.path, params.content);
      return {};
    })
    .onRequest("session/request_permission", ({ params }) => {
      permissionAsked++;
      const allow = params.options.find((option) => option.kind === "allow_once");
      return { outcome: { outcome: "selected", optionId: allow!.optionId } };
    })
    .onNotification("session/update", ({ params }) => {
      const { update } = params;
      if (update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update") {
        if (update.status != null) statuses.set(update.toolCallId, update.status);
      }
    });
  let stopReason = "";
  try {
    await within(
      client.connectWith(acp.ndJsonStream(child.stdin, child.stdout), async (cx) => {
        await cx.request("initialize", {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
        });
        const { sessionId } = await cx.request("session/new", { cwd: project, mcpServers: [] });
        const answer = await cx.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "write the file" }],
        });
        stopReason = answer.stopReason;
      }),
      60_000,
    );
  } finally {
    await child.stdin.close().catch(() => {});
    const status = await within(child.status, 10_000).catch(() => undefined);
    if (status === undefined) {
      child.kill("SIGKILL");
      await child.status;
    }
  }
  return {
    reads,
    writes,
    permissionAsked,
    statuses: [...statuses.values()],
    stopReason,
    stderr: await stderr,
  };
}

function withProject(fn: (dir: string) => Promise<void>): Promise<void> {
  return withTempProject({ "home/.keep": "", "project/.keep": "" }, fn);
}

const CASES: readonly [MissingFile, "claude" | "llama", string][] = [
  ["thrown ENOENT", "claude", "Write"],
  ["thrown ENOENT", "llama", "fs_write"],
  ["-32002", "claude", "Write"],
];

for (const [missing, profile, name] of CASES) {
  Deno.test(`a client whose missing file is ${missing}: ${name} (${profile} profile) creates a new file through a prompt, reading it once`, async () => {
    await withProject(async (dir) => {
      const path = `${dir}/project/notes/new.txt`;
      await Deno.mkdir(`${dir}/project/notes`);
      const run = await runWithSdkClient(dir, { profile, missing }, {
        name,
        input: { file_path: "notes/new.txt", content: "hello\n" },
      });
      const described = JSON.stringify({ ...run, stderr: run.stderr.slice(-2000) }, null, 2);
      assertEquals(run.statuses, ["completed"], described);
      assertEquals(await Deno.readTextFile(path), "hello\n");
      assertEquals(run.reads, [path], described);
      assertEquals(run.writes, [path]);
      assertEquals(run.permissionAsked, 1);
      assertEquals(run.stopReason, "end_turn");
    });
  });
}

Deno.test("an Edit through an SDK-built client reads the file once, and again after the prompt", async () => {
  await withProject(async (dir) => {
    const path = `${dir}/project/a.txt`;
    await Deno.writeTextFile(path, "one\ntwo\n");
    const run = await runWithSdkClient(dir, { profile: "claude", missing: "thrown ENOENT" }, {
      name: "Edit",
      input: { file_path: "a.txt", old_string: "two", new_string: "three" },
    });
    assertEquals(run.statuses, ["completed"], run.stderr.slice(-2000));
    assertEquals(await Deno.readTextFile(path), "one\nthree\n");
    // Once for the check and the prompt's diff; once more for the edit, as the user may have
    // changed the file while the prompt was open.
    assertEquals(run.reads, [path, path]);
  });
});
