/** The baseline every spawn figure is a ratio to: `sh -c true` through a plain `Deno.Command`. */
export async function bareSpawn(): Promise<void> {
  const output = await new Deno.Command("sh", {
    args: ["-c", "true"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error("sh -c true failed");
}
