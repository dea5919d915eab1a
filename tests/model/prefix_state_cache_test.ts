/**
 * The prefix-state entries without a model: a state kept is found again by the next session; a
 * state or header that is cut, changed, garbage, or made for another key is said, removed and
 * made again before anything loads it; the directory keeps to its bounds; a FIFO is never opened.
 */
import {
  type LoadCheck,
  PrefixStateCache,
  type PrefixStateCacheOptions,
  type PrefixStateKey,
} from "../../src/model/llama/prefix_state_cache.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";

const KEY: PrefixStateKey = { model: "/models/a.gguf", contextSize: 4096, prefixSha256: "ab" };
const STATE = new TextEncoder().encode("llama.cpp state bytes\n\u0000\u0001 and more");

interface Session {
  /** What each load was handed: the path and the bytes there. */
  readonly loads: { path: string; bytes: Uint8Array }[];
  builds: number;
}

/** Steps of a session whose state is `state`; a load is accepted unless `refuse` says why. */
function steps(session: Session, state = STATE, refuse?: string) {
  return {
    async load(path: string): Promise<LoadCheck> {
      session.loads.push({ path, bytes: await Deno.readFile(path) });
      return refuse === undefined ? { ok: true } : { ok: false, reason: refuse };
    },
    build() {
      session.builds++;
      return Promise.resolve(true);
    },
    save: (path: string) => Deno.writeFile(path, state),
  };
}

const newSession = (): Session => ({ loads: [], builds: 0 });

async function withCache(
  fn: (cache: PrefixStateCache, dir: string, logs: string[]) => Promise<void>,
  options: Partial<PrefixStateCacheOptions> = {},
): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "prefix_state_cache_test_" });
  const dir = `${root}/prefix-states`;
  const logs: string[] = [];
  try {
    await fn(new PrefixStateCache({ dir, log: (line) => logs.push(line), ...options }), dir, logs);
  } finally {
    await Deno.chmod(root, 0o700).catch(() => {});
    await Deno.remove(root, { recursive: true });
  }
}

async function names(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

Deno.test("a state kept by one session is what the next one loads", async () => {
  await withCache(async (cache, dir, logs) => {
    const first = newSession();
    assertEquals(await cache.restoreOrBuild(KEY, steps(first)), "stored");
    assertEquals([first.builds, first.loads.length], [1, 0]);
    const entry = await cache.entryOf(KEY);
    assertEquals(await names(dir), [entry.slice(dir.length + 1)]);
    assertEquals(await names(entry), ["header.json", "state"]);
    // An entry another process finds too: a new cache object on the same directory.
    const again = new PrefixStateCache({ dir, log: (line) => logs.push(line) });
    const second = newSession();
    assertEquals(await again.restoreOrBuild(KEY, steps(second)), "restored");
    assertEquals(second.builds, 0);
    assertEquals(second.loads, [{ path: `${entry}/state`, bytes: STATE }]);
    assertEquals(await names(dir), [entry.slice(dir.length + 1)], "nothing else left behind");
    assertEquals(logs, []);
  });
});

Deno.test("the same key's fields in another order name the same file", async () => {
  await withCache(async (cache) => {
    const reordered = Object.fromEntries(Object.entries(KEY).reverse());
    assertEquals(await cache.entryOf(reordered), await cache.entryOf(KEY));
    assert(await cache.entryOf({ ...KEY, contextSize: 8192 }) !== await cache.entryOf(KEY));
  });
});

Deno.test("a corrupt entry is said, never loaded, and replaced", async (t) => {
  const changeLastByte = (bytes: Uint8Array) => {
    const changed = bytes.slice();
    const at = changed.byteLength - 3;
    changed[at] = changed[at]! ^ 0xff;
    return changed;
  };
  const corruptions: Record<
    string,
    [file: "state" | "header.json", (b: Uint8Array) => Uint8Array]
  > = {
    "a state cut short": ["state", (bytes) => bytes.subarray(0, bytes.byteLength - 5)],
    "one byte of the state changed": ["state", changeLastByte],
    "a state longer than its header says": ["state", (bytes) => new Uint8Array([...bytes, 1, 2])],
    "an empty state": ["state", () => new Uint8Array(0)],
    "a header that is not JSON": ["header.json", () => new TextEncoder().encode("{not json")],
    "a header of something else": ["header.json", () => new TextEncoder().encode('{"a":1}')],
    "a header with another checksum": ["header.json", (bytes) =>
      new TextEncoder().encode(
        new TextDecoder().decode(bytes).replace(/"crc32":\d+/, `"crc32":1`),
      )],
    "a header over its limit": ["header.json", () => new Uint8Array(20_000).fill(0x20)],
  };
  for (const [name, [file, corrupt]] of Object.entries(corruptions)) {
    await t.step(name, async () => {
      await withCache(async (cache, _dir, logs) => {
        await cache.restoreOrBuild(KEY, steps(newSession()));
        const entry = await cache.entryOf(KEY);
        const path = `${entry}/${file}`;
        const before = await Deno.readFile(path);
        const after = corrupt(before);
        assert(after.join() !== before.join(), "the corruption changes the file");
        await Deno.writeFile(path, after);
        const session = newSession();
        assertEquals(await cache.restoreOrBuild(KEY, steps(session)), "stored");
        assertEquals([session.loads.length, session.builds], [0, 1], "never loaded, built again");
        assertEquals(logs.length, 1, logs.join("\n"));
        assertStringIncludes(logs[0]!, `The cached prompt state "${entry}" is not usable (`);
        assertStringIncludes(logs[0]!, "evaluated again and the state replaced");
        // Replaced: the next session loads it.
        const next = newSession();
        assertEquals(await cache.restoreOrBuild(KEY, steps(next)), "restored");
        assertEquals(next.loads.map((load) => load.bytes), [STATE]);
      });
    });
  }
});

Deno.test("a state made for another key is not used, even under this key's name", async () => {
  await withCache(async (cache, _dir, logs) => {
    const other = { ...KEY, model: "/models/b.gguf" };
    await cache.restoreOrBuild(other, steps(newSession(), new TextEncoder().encode("B's state")));
    // Another key has its own file: nothing to load for KEY.
    const session = newSession();
    assertEquals(await cache.restoreOrBuild(KEY, steps(session)), "stored");
    assertEquals(session.loads, []);
    // An entry moved under KEY's name still names its own key inside.
    await Deno.remove(await cache.entryOf(KEY), { recursive: true });
    await Deno.rename(await cache.entryOf(other), await cache.entryOf(KEY));
    const fooled = newSession();
    assertEquals(await cache.restoreOrBuild(KEY, steps(fooled)), "stored");
    assertEquals(fooled.loads, []);
    assertStringIncludes(logs.join("\n"), "it was made for another model, context or prompt");
  });
});

Deno.test("a state the session finds wrong once loaded is dropped and made again", async () => {
  await withCache(async (cache, _dir, logs) => {
    await cache.restoreOrBuild(KEY, steps(newSession()));
    const session = newSession();
    const outcome = await cache.restoreOrBuild(
      KEY,
      steps(session, STATE, "it holds other tokens than the prompt's"),
    );
    assertEquals([outcome, session.loads.length, session.builds], ["stored", 1, 1]);
    assertStringIncludes(logs.join("\n"), "(it holds other tokens than the prompt's)");
  });
});

Deno.test("a FIFO where the state or its header should be is refused without waiting", async (t) => {
  for (const file of ["state", "header.json"]) {
    await t.step(file, async () => {
      await withCache(async (cache, _dir, logs) => {
        await cache.restoreOrBuild(KEY, steps(newSession()));
        const path = `${await cache.entryOf(KEY)}/${file}`;
        await Deno.remove(path);
        const made = await new Deno.Command("mkfifo", { args: [path] }).output();
        assert(made.success, "mkfifo");
        const session = newSession();
        assertEquals(await cache.restoreOrBuild(KEY, steps(session)), "stored");
        assertEquals(session.loads, []);
        assertStringIncludes(logs.join("\n"), "it is a FIFO, not a regular file");
        assert((await Deno.lstat(path)).isFile, "replaced by a regular file");
      });
    });
  }
});

Deno.test("the directory keeps to its bounds: entries, bytes, and one state's size", async (t) => {
  const state = new Uint8Array(1000).fill(7);
  const keyOf = (n: number) => ({ ...KEY, prefixSha256: `prefix ${n}` });

  await t.step("the least recently used go first past the count", async () => {
    await withCache(async (cache, dir) => {
      for (let n = 0; n < 3; n++) {
        await cache.restoreOrBuild(keyOf(n), steps(newSession(), state));
        // Used one after the other, a minute apart.
        const used = new Date(Date.now() - (3 - n) * 60_000);
        await Deno.utime(await cache.entryOf(keyOf(n)), used, used);
      }
      // Used again, the first is now the most recent: the second goes when a fourth comes.
      assertEquals(await cache.restoreOrBuild(keyOf(0), steps(newSession(), state)), "restored");
      await cache.restoreOrBuild(keyOf(3), steps(newSession(), state));
      const kept = await names(dir);
      const expected = await Promise.all([0, 2, 3].map(async (n) => await cache.entryOf(keyOf(n))));
      assertEquals(kept, expected.map((path) => path.slice(dir.length + 1)).sort());
    }, { maxEntries: 3 });
  });

  await t.step("past the bytes of all files together", async () => {
    await withCache(async (cache, dir) => {
      for (let n = 0; n < 5; n++) await cache.restoreOrBuild(keyOf(n), steps(newSession(), state));
      const sizes = await Promise.all(
        (await names(dir)).map(async (name) => (await Deno.stat(`${dir}/${name}/state`)).size),
      );
      assertEquals(sizes.length, 2, "two entries of ~1.2 KB fit in 3,000 bytes, not three");
      assert(sizes.reduce((a, b) => a + b) <= 3000);
    }, { maxTotalBytes: 3000 });
  });

  await t.step("a state over the entry limit is not kept, and said", async () => {
    await withCache(async (cache, dir, logs) => {
      const session = newSession();
      assertEquals(await cache.restoreOrBuild(KEY, steps(session, state)), "built");
      assertEquals(await names(dir), []);
      assertStringIncludes(logs.join("\n"), "over the cache's 999-byte limit: it is not kept");
    }, { maxEntryBytes: 999 });
  });

  await t.step("what a killed process left is removed once it is an hour old", async () => {
    await withCache(async (cache, dir) => {
      await Deno.mkdir(`${dir}/.new-old`, { recursive: true });
      await Deno.writeTextFile(`${dir}/.new-old/state`, "half");
      await Deno.mkdir(`${dir}/.new-fresh`, { recursive: true });
      const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
      await Deno.utime(`${dir}/.new-old`, old, old);
      await cache.restoreOrBuild(KEY, steps(newSession()));
      const left = await names(dir);
      assertEquals(left.filter((name) => name.startsWith(".")), [".new-fresh"]);
    });
  });
});

Deno.test("sessions of one process asking for one prefix at once build it once", async () => {
  await withCache(async (cache) => {
    const sessions = [newSession(), newSession(), newSession()];
    const outcomes = await Promise.all(
      sessions.map((session) => cache.restoreOrBuild(KEY, steps(session))),
    );
    // Whichever came first built it; the others waited for it and loaded it.
    assertEquals([...outcomes].sort(), ["restored", "restored", "stored"]);
    assertEquals(sessions.map((session) => session.builds).sort(), [0, 0, 1]);
  });
});

Deno.test("a directory that cannot be written is said once, and sessions still get their prefix", async () => {
  await withCache(async (_cache, dir, logs) => {
    // A file where the directory should be: unwritable even for root, who writes anywhere.
    await Deno.writeTextFile(dir, "a file where the directory should be");
    const cache = new PrefixStateCache({ dir: `${dir}/states`, log: (line) => logs.push(line) });
    const sessions = [newSession(), newSession()];
    for (const session of sessions) {
      assertEquals(await cache.restoreOrBuild(KEY, steps(session)), "built");
    }
    assertEquals(sessions.map((session) => session.builds), [1, 1]);
    assertEquals(logs.length, 1, logs.join("\n"));
    assertStringIncludes(logs[0]!, `Cannot keep the prompt's evaluated state in "${dir}/states"`);
  });
});

Deno.test("a build stopped part way keeps nothing", async () => {
  await withCache(async (cache, dir) => {
    const outcome = await cache.restoreOrBuild(KEY, {
      ...steps(newSession()),
      build: () => Promise.resolve(false),
    });
    assertEquals(outcome, "not_built");
    assertEquals(await Deno.stat(dir).then(() => names(dir), () => []), []);
  });
});
