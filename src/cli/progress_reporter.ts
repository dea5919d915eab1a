/**
 * Progress of long work (model download and load) on stderr: a bar redrawn in place on a
 * terminal, and a line per quarter otherwise, so logs stay readable.
 */
import type { CliIo } from "./command_spec.ts";

const BAR_WIDTH = 30;

export type ProgressReporter = (label: string, fraction: number) => void;

export function createProgressReporter(
  io: Pick<CliIo, "stderr" | "stderrIsTty">,
): ProgressReporter {
  let lastLabel = "";
  let lastStep = -1;
  return (label, fraction) => {
    const clamped = Math.min(1, Math.max(0, fraction));
    const percent = Math.floor(clamped * 100);
    if (io.stderrIsTty) {
      const filled = Math.round(clamped * BAR_WIDTH);
      const bar = "#".repeat(filled) + "-".repeat(BAR_WIDTH - filled);
      io.stderr(`\r${label} [${bar}] ${String(percent).padStart(3)}%${clamped >= 1 ? "\n" : ""}`);
      return;
    }
    const step = Math.floor(percent / 25);
    if (label === lastLabel && step === lastStep) return;
    lastLabel = label;
    lastStep = step;
    io.stderr(`${label}: ${step * 25}%\n`);
  };
}
