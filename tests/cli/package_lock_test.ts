/**
 * The committed lockfile is the one `npm install` leaves as it is: npm rewrites the lock's root
 * entry from package.json on every install, so a spec that differs there (`^2.4.0` against a
 * pinned `2.4.0`) leaves every fresh clone modified after the README's install step.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { REPO_ROOT } from "../helpers/run_cli.ts";
import { z } from "zod";

const DEPENDENCY_FIELDS = [
  "dependencies",
  "devDependencies",
  "optionalDependencies",
  "peerDependencies",
] as const;

const Specs = z.record(z.string(), z.string());
const Manifest = z.looseObject(
  Object.fromEntries(DEPENDENCY_FIELDS.map((field) => [field, Specs.optional()])),
);
const Lock = z.looseObject({
  lockfileVersion: z.number(),
  packages: z.record(z.string(), z.looseObject({ version: z.string().optional() })),
});

async function readJson<T>(file: string, schema: z.ZodType<T>): Promise<T> {
  return schema.parse(JSON.parse(await Deno.readTextFile(`${REPO_ROOT}/${file}`)));
}

Deno.test("the lockfile's root entry names every dependency with package.json's own spec", async () => {
  const manifest = await readJson("package.json", Manifest);
  const lock = await readJson("package-lock.json", Lock);
  const root = Manifest.parse(lock.packages[""]);
  for (const field of DEPENDENCY_FIELDS) {
    assertEquals(
      root[field],
      manifest[field],
      `package-lock.json's root "${field}" differs from package.json's: run ` +
        '"npm install --omit=optional --no-audit --no-fund" and commit package-lock.json',
    );
  }
});

Deno.test("every pinned dependency is locked at exactly its pin", async () => {
  const manifest = await readJson("package.json", Manifest);
  const lock = await readJson("package-lock.json", Lock);
  assertEquals(lock.lockfileVersion, 3);
  let pins = 0;
  for (const field of ["dependencies", "devDependencies"] as const) {
    for (const [name, spec] of Object.entries(manifest[field] ?? {})) {
      assert(/^\d+\.\d+\.\d+$/.test(spec), `package.json pins "${name}" loosely: "${spec}"`);
      assertEquals(lock.packages[`node_modules/${name}`]?.version, spec, `"${name}" in the lock`);
      pins++;
    }
  }
  assert(pins > 5, `only ${pins} dependencies found`);
});
