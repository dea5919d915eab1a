/**
 * One file-name convention: snake_case TypeScript files (`deno task lint` runs this).
 */
const ROOTS = ["src", "tests", "bench", "tools"];
const SNAKE_CASE = /^[a-z0-9]+(_[a-z0-9]+)*(\.d)?\.ts$/;

const offenders: string[] = [];
async function walk(dir: string): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) await walk(path);
    else if (entry.name.endsWith(".ts") && !SNAKE_CASE.test(entry.name)) offenders.push(path);
  }
}
for (const root of ROOTS) {
  try {
    await walk(root);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}
if (offenders.length > 0) {
  console.error(`File names must be snake_case:\n${offenders.map((p) => `  ${p}`).join("\n")}`);
  Deno.exit(1);
}
