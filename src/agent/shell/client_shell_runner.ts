/**
 * The shell tool in a client terminal, used when the client advertised `terminal`: the user
 * watches the command run in the editor. The sequence is ACP's: `terminal/create`
 * (`<shell> -c <command>` in the session's current directory; the request's program, `/bin/sh` by
 * default) → `terminal/wait_for_exit` → `terminal/output` →
 * `terminal/release`. A timeout or a cancel sends `terminal/kill` first, then reads what was
 * printed and releases. The terminal is always released, whatever failed.
 *
 * The client keeps the last `outputByteLimit` bytes (it cuts from the start), so here the end of
 * a long output survives, unlike a local run.
 */
import { z } from "zod";
import { clientErrorMessage, type ClientRequest } from "../client_request.ts";
import { resolveEnvAssignments } from "./session_env_file.ts";
import { reportingScript } from "./shell_script.ts";
import {
  DEFAULT_SHELL_OUTPUT_CAP_BYTES,
  type ShellOutput,
  type ShellRunner,
  type ShellRunRequest,
  type ShellRunResult,
} from "./shell_runner.ts";

const CreateTerminalAnswer = z.looseObject({ terminalId: z.string().min(1) });
const ExitStatus = z.looseObject({
  exitCode: z.number().int().nullish(),
  signal: z.string().nullish(),
});
const TerminalOutputAnswer = z.looseObject({
  output: z.string(),
  truncated: z.boolean(),
  exitStatus: ExitStatus.nullish(),
});

export interface ClientShellRunnerOptions {
  readonly sessionId: string;
  readonly request: ClientRequest;
  readonly outputByteLimit?: number;
  /**
   * Where a `$NAME` in the session's env-file variables is looked up: the environment the agent
   * gives the processes it starts (the endpoint's key left out); its own when absent.
   */
  readonly env?: Readonly<Record<string, string>>;
}

export class ClientShellRunner implements ShellRunner {
  constructor(private readonly options: ClientShellRunnerOptions) {}

  async run(run: ShellRunRequest): Promise<ShellRunResult> {
    const { sessionId, request } = this.options;
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    if (run.signal?.aborted) {
      return { kind: "cancelled", output: "", truncated: false, durationMs: elapsed() };
    }

    let terminalId: string;
    try {
      const answer = CreateTerminalAnswer.safeParse(
        await request("terminal/create", {
          sessionId,
          command: run.program ?? "/bin/sh",
          args: [
            "-c",
            run.directoryReport === undefined
              ? run.command
              : reportingScript(run.command, run.directoryReport),
          ],
          cwd: run.cwd,
          ...terminalEnv(run, this.options.env),
          outputByteLimit: this.options.outputByteLimit ?? DEFAULT_SHELL_OUTPUT_CAP_BYTES,
        }),
      );
      if (!answer.success) {
        return {
          kind: "failed",
          message: `Cannot run the command in the client's terminal: the client's answer has ` +
            `no "terminalId"`,
          durationMs: elapsed(),
        };
      }
      terminalId = answer.data.terminalId;
    } catch (error) {
      return {
        kind: "failed",
        message: `Cannot run the command in the client's terminal: ${clientErrorMessage(error)}`,
        durationMs: elapsed(),
      };
    }

    const ids = { sessionId, terminalId };
    const stop = stopTrigger(run.timeoutMs, run.signal);
    try {
      try {
        await run.onTerminal?.(terminalId);
      } catch {
        // Showing the terminal is the caller's business; the command runs either way.
      }
      // Never rejects, so a wait still pending after a kill cannot become an unhandled error.
      const waited = request("terminal/wait_for_exit", ids).then(
        (answer) => ({ answer }),
        (error: unknown) => ({ error }),
      );
      const first = await Promise.race([
        waited.then((outcome) => ({ outcome })),
        stop.reason.then((stopped) => ({ stopped })),
      ]);

      if ("stopped" in first) {
        await request("terminal/kill", ids).catch(() => {});
        const output = await readOutput(request, ids);
        return {
          kind: first.stopped,
          ...(output.ok ? output.value : { output: "", truncated: false }),
          durationMs: elapsed(),
          terminalId,
        };
      }
      if ("error" in first.outcome) {
        await request("terminal/kill", ids).catch(() => {});
        return {
          kind: "failed",
          message: `Cannot wait for the command in the client's terminal: ${
            clientErrorMessage(first.outcome.error)
          }`,
          durationMs: elapsed(),
          terminalId,
        };
      }
      const output = await readOutput(request, ids);
      if (!output.ok) {
        return { kind: "failed", message: output.message, durationMs: elapsed(), terminalId };
      }
      const exit = ExitStatus.safeParse(first.outcome.answer);
      const status = exit.success ? exit.data : output.exitStatus ?? {};
      return {
        kind: "exited",
        exitCode: status.exitCode ?? null,
        signal: status.signal ?? null,
        ...output.value,
        durationMs: elapsed(),
        terminalId,
      };
    } finally {
      stop.dispose();
      await request("terminal/release", ids).catch(() => {});
    }
  }
}

/**
 * The session's env-file variables, for `terminal/create`: the client sets them over its own
 * environment. A `$NAME` in them is read from the agent's environment for child processes
 * (`env`), which the client's is not known to differ from (the editor started the agent).
 */
function terminalEnv(
  run: ShellRunRequest,
  env: Readonly<Record<string, string>> | undefined,
): { env?: { name: string; value: string }[] } {
  if (!run.sessionEnv?.length) return {};
  const lookup = env === undefined
    ? (name: string) => Deno.env.get(name)
    : (name: string) => Object.hasOwn(env, name) ? env[name] : undefined;
  const set = resolveEnvAssignments(run.sessionEnv, lookup);
  return { env: [...set].map(([name, value]) => ({ name, value })) };
}

type OutputRead =
  | {
    readonly ok: true;
    readonly value: ShellOutput;
    readonly exitStatus: z.infer<typeof ExitStatus> | null | undefined;
  }
  | { readonly ok: false; readonly message: string };

async function readOutput(
  request: ClientRequest,
  ids: { sessionId: string; terminalId: string },
): Promise<OutputRead> {
  try {
    const answer = TerminalOutputAnswer.safeParse(await request("terminal/output", ids));
    if (!answer.success) {
      return {
        ok: false,
        message: `Cannot read the client terminal's output: the client's answer has no ` +
          `"output" string and "truncated" flag`,
      };
    }
    const { output, truncated, exitStatus } = answer.data;
    return { ok: true, value: { output, truncated }, exitStatus };
  } catch (error) {
    return {
      ok: false,
      message: `Cannot read the client terminal's output: ${clientErrorMessage(error)}`,
    };
  }
}

/** Settles with a stop reason when the timeout passes or the signal aborts; never rejects. */
function stopTrigger(timeoutMs: number, signal: AbortSignal | undefined) {
  let fire: (reason: "timed_out" | "cancelled") => void = () => {};
  const reason = new Promise<"timed_out" | "cancelled">((resolve) => fire = resolve);
  const timer = setTimeout(() => fire("timed_out"), timeoutMs);
  const onAbort = () => fire("cancelled");
  if (signal?.aborted) fire("cancelled");
  signal?.addEventListener("abort", onAbort, { once: true });
  return {
    reason,
    dispose: () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    },
  };
}
