/**
 * The environment the agent gives the processes it starts for others (command and http hooks,
 * shell commands, MCP servers): its own, less the variables that hold its secrets. The endpoint's
 * key (`--api-key-env VAR`) is read by the agent alone; a hook from a project's settings, or a
 * plugin's, has no business with it, and one that had it could send it anywhere.
 */

/**
 * The agent's environment without `hidden`, or undefined when nothing is hidden (the processes
 * then get the agent's environment as it is when each starts).
 */
export function childEnvironment(
  hidden: readonly string[],
  environment: () => Record<string, string> = () => Deno.env.toObject(),
): Record<string, string> | undefined {
  if (hidden.length === 0) return undefined;
  const env = environment();
  for (const name of hidden) delete env[name];
  return env;
}
