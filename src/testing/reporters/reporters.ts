/**
 * Every `hooks test --reporter`, looked up by name in one table the compiler keeps complete.
 */
import type { Reporter, ReporterOptions } from "../scenarios/scenario_run.ts";
import { createDefaultReporter } from "./default_reporter.ts";
import { createGithubReporter } from "./github_reporter.ts";
import { createJsonReporter } from "./json_reporter.ts";
import { createJunitReporter } from "./junit_reporter.ts";
import { createTapReporter } from "./tap_reporter.ts";

export const REPORTER_NAMES = ["default", "tap", "junit", "json", "github"] as const;
export type ReporterName = (typeof REPORTER_NAMES)[number];

export const REPORTERS: Readonly<Record<ReporterName, (options: ReporterOptions) => Reporter>> = {
  default: createDefaultReporter,
  tap: createTapReporter,
  junit: createJunitReporter,
  json: createJsonReporter,
  github: createGithubReporter,
};

export function isReporterName(name: string): name is ReporterName {
  return (REPORTER_NAMES as readonly string[]).includes(name);
}
