/**
 * Seeded fuzzing of the settings loader: real settings files, mutated at random, must never make
 * it throw, and every diagnostic must say where it is. Rerun a failure with its seed:
 * `SETTINGS_FUZZ_SEED=<seed> deno test --allow-all tests/hooks/settings_fuzz_test.ts`.
 */
import { parse } from "jsonc-parser";
import { mulberry32 } from "../helpers/mulberry32.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { FIRED_EVENTS } from "../../src/hooks/event_table.ts";
import { buildRegistry, selectRegistrations } from "../../src/hooks/registry.ts";
import {
  type LoadedSettings,
  loadSettingsChain,
  type ReadTextFile,
} from "../../src/hooks/settings/settings_chain.ts";

const FIXTURES = new URL("../../fixtures/settings/", import.meta.url);
const FIXTURE_NAMES = [
  "claude_code_style.json",
  "http_and_prompt.json",
  "many_events.json",
  "commented.jsonc",
];
const CASES = 1500;
const DEFAULT_SEED = 0x5eed_2024;
const POINTER = /^(\/([^~/]|~[01])*)*$/;

type Json = null | boolean | number | string | Json[] | JsonObject;
interface JsonObject {
  [key: string]: Json;
}

class Random {
  constructor(readonly next: () => number) {}
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new Error("pick from an empty list");
    return item;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

function toJson(value: unknown): Json {
  if (value === null || typeof value === "boolean" || typeof value === "number") return value;
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(toJson);
  if (typeof value === "object") {
    const object: JsonObject = {};
    for (const [key, item] of Object.entries(value)) object[key] = toJson(item);
    return object;
  }
  return null;
}

const KEYS = [
  "hooks",
  "matcher",
  "type",
  "command",
  "args",
  "timeout",
  "url",
  "headers",
  "prompt",
  "model",
  "onFailure",
  "disableAllHooks",
  "PreToolUse",
  "Stop",
  "SessionEnd",
  "Bogus",
  "__proto__",
  "constructor",
  "",
  "a/b~c",
];
const STRINGS = [
  "",
  "command",
  "http",
  "prompt",
  "agent",
  "script",
  "echo hi",
  "http://x",
  "file:///x",
  "block",
  "ü😀",
  "\u0000",
  "PreToolUse",
  "-1",
];
const MATCHERS = [
  "[",
  "(",
  "a|b",
  "^Notebook",
  "mcp__.*",
  "*",
  "",
  "\\",
  "(?<n>x)",
  "a{2,1}",
  "Edit, Write",
  "[a-",
  "**",
  "+",
  "(?=x)",
  "x{99999999999}",
  "|",
  "shell|terminal",
  ".*",
  "(a)\\1",
];
const MATCHER_CHARS = "^$.*+?()[]{}|\\,- _aZ09";
const JUNK = '{}[],:"\\/*\n\t x0-#\u00a0';

function randomMatcher(r: Random): string {
  if (r.chance(0.5)) return r.pick(MATCHERS);
  let text = "";
  for (let i = r.int(8); i >= 0; i--) text += MATCHER_CHARS[r.int(MATCHER_CHARS.length)];
  return text;
}

function randomJson(r: Random, depth = 0): Json {
  switch (r.int(depth > 2 ? 4 : 6)) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2:
      return r.pick([0, -1, 1.5, 30, 1e308, -0, 600_000]);
    case 3:
      return r.chance(0.3) ? randomMatcher(r) : r.pick(STRINGS);
    case 4:
      return Array.from({ length: r.int(3) }, () => randomJson(r, depth + 1));
    default: {
      const object: JsonObject = {};
      for (let i = r.int(3); i > 0; i--) object[r.pick(KEYS)] = randomJson(r, depth + 1);
      return object;
    }
  }
}

interface Slot {
  readonly container: Json[] | JsonObject;
  readonly key: string | number;
}

function collectSlots(value: Json, out: Slot[]): Slot[] {
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      out.push({ container: value, key: index });
      collectSlots(item, out);
    });
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      out.push({ container: value, key });
      collectSlots(item, out);
    }
  }
  return out;
}

/** One change to the parsed value; returns its description. */
function mutateValue(r: Random, root: Json): string {
  const slots = collectSlots(root, []);
  if (slots.length === 0) return "no slot";
  const { container, key } = r.pick(slots);
  const kind = r.int(5);
  if (Array.isArray(container) && typeof key === "number") {
    const item = container[key] ?? null;
    if (kind === 0) container.splice(key, 1);
    else if (kind === 1) container.splice(key, 0, structuredClone(item));
    else container[key] = randomJson(r);
    return `array ${["delete", "duplicate"][kind] ?? "replace"} at ${key}`;
  }
  if (!Array.isArray(container) && typeof key === "string") {
    if (kind === 0) delete container[key];
    else if (kind === 1) container[r.pick(KEYS)] = randomJson(r);
    else if (kind === 2) container.matcher = randomMatcher(r);
    else container[key] = randomJson(r);
    return `object ${["delete", "add key", "set matcher"][kind] ?? "replace"} at "${key}"`;
  }
  return "no change";
}

function insertAt(text: string, offset: number, insert: string): string {
  return text.slice(0, offset) + insert + text.slice(offset);
}

/** One change to the text itself; returns the new text and its description. */
function mutateText(r: Random, text: string): [string, string] {
  const at = r.int(text.length + 1);
  switch (r.int(7)) {
    case 0:
      return [insertAt(text, at, JUNK[r.int(JUNK.length)] ?? "#"), `junk at ${at}`];
    case 1:
      return [text.slice(0, at) + text.slice(at + 1 + r.int(20)), `delete at ${at}`];
    case 2:
      return [text.slice(0, at), `truncate at ${at}`];
    case 3:
      return [insertAt(text, at, r.chance(0.5) ? "/* c */" : "// c\n"), `comment at ${at}`];
    case 4: {
      const closers = [...text.matchAll(/[}\]]/g)].map((m) => m.index);
      const close = closers.length > 0 ? r.pick(closers) : at;
      return [insertAt(text, close, ","), `trailing comma at ${close}`];
    }
    case 5:
      return [text.replaceAll("\n", "\r\n"), "CRLF"];
    default:
      return ["\ufeff" + text, "BOM"];
  }
}

function readerFor(path: string, text: string): ReadTextFile {
  return (candidate) =>
    candidate === path
      ? Promise.resolve(text)
      : Promise.reject(new Deno.errors.NotFound(`No such file: ${candidate}`));
}

function checkInvariants(loaded: LoadedSettings, path: string): void {
  const file = loaded.files.find((f) => f.path === path);
  assert(file !== undefined, "the mutated file is in the chain");
  const parsed = file.status === "loaded" || file.status === "invalid";
  for (const d of loaded.diagnostics) {
    const where = `diagnostic ${JSON.stringify(d)}`;
    assertEquals(d.file, path, where);
    assert(POINTER.test(d.pointer), `${where}: pointer is not a JSON pointer`);
    assert(d.message.length > 0, `${where}: empty message`);
    if (parsed) assert((d.line ?? 0) >= 1 && (d.column ?? 0) >= 1, `${where}: no position`);
  }
  for (const { source } of [...loaded.handlers, ...loaded.skipped]) {
    assertEquals(source.file, path);
    assert(POINTER.test(source.pointer) && source.line >= 1, JSON.stringify(source));
  }
  const registry = buildRegistry(loaded);
  for (const event of FIRED_EVENTS) {
    for (const value of [null, "shell", "NotebookEdit", "mcp__sah__x", "startup"]) {
      const { matched, unmatched } = selectRegistrations(registry, event, value);
      const seen = matched.length + unmatched.length;
      assertEquals(seen, registry.registrations.filter((x) => x.event === event).length);
    }
  }
}

async function fixtures(): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const name of FIXTURE_NAMES) {
    texts.set(name, await Deno.readTextFile(new URL(name, FIXTURES)));
  }
  return texts;
}

function seedFromEnv(): number {
  const raw = Deno.env.get("SETTINGS_FUZZ_SEED");
  return raw === undefined || raw === "" ? DEFAULT_SEED : Number(raw) >>> 0;
}

Deno.test("every settings fixture loads with no diagnostics", async () => {
  for (const [name, text] of await fixtures()) {
    const path = `/fixture/.claude/settings.json`;
    const loaded = await loadSettingsChain({
      cwd: "/fixture",
      home: undefined,
      readTextFile: readerFor(path, text),
    });
    assertEquals(loaded.diagnostics, [], name);
    assert(loaded.handlers.length > 0, `${name} has handlers`);
  }
});

Deno.test(`${CASES} seeded mutations of real settings files never throw and always locate diagnostics`, async () => {
  const seed = seedFromEnv();
  const r = new Random(mulberry32(seed));
  const texts = await fixtures();
  const values = new Map([...texts].map(([name, text]) => [name, toJson(parse(text))]));
  for (let i = 0; i < CASES; i++) {
    const name = r.pick(FIXTURE_NAMES);
    const steps: string[] = [name];
    let text = texts.get(name) ?? "";
    if (r.chance(0.6)) {
      const value = structuredClone(values.get(name) ?? null);
      for (let n = 1 + r.int(3); n > 0; n--) steps.push(mutateValue(r, value));
      text = JSON.stringify(value, null, r.pick([0, 2, "\t"]));
    }
    for (let n = r.chance(0.6) ? r.int(3) : 0; n > 0; n--) {
      const [next, step] = mutateText(r, text);
      text = next;
      steps.push(step);
    }
    const scope = r.pick(["/home/u/.claude/settings.json", "/p/.claude/settings.json"]);
    const path = r.chance(0.3) ? "/p/.claude/settings.local.json" : scope;
    try {
      const loaded = await loadSettingsChain({
        cwd: "/p",
        home: "/home/u",
        readTextFile: readerFor(path, text),
      });
      checkInvariants(loaded, path);
    } catch (error) {
      const detail = error instanceof Error ? error.stack ?? error.message : String(error);
      throw new Error(
        `Fuzz case failed: seed ${seed} (SETTINGS_FUZZ_SEED=${seed}), case ${i}, ` +
          `mutations ${JSON.stringify(steps)}\ntext: ${JSON.stringify(text)}\n${detail}`,
      );
    }
  }
});
