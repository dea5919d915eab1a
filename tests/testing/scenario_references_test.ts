/** The fixture directories and settings files a scenario names: checked when it is loaded. */
import { assert, assertEquals } from "../helpers/assert.ts";
import { linkToDevZero, makeFifo, writeSpaces } from "../hooks/special_files.ts";
import { lines, problemsOf } from "./scenario_files.ts";

Deno.test("a home directory that does not exist is reported at its field", async () => {
  const problems = await problemsOf(
    lines(
      "{",
      '  "home": "fixtures/home",',
      '  "cases": [',
      '    { "name": "a", "event": "Stop", "expect": {"errors": 0} },',
      '    { "name": "b", "event": "Stop", "home": "fixtures/nowhere", "expect": {"errors": 0} },',
      '    { "name": "c", "event": "Stop", "home": "fixtures/file.txt", "expect": {"errors": 0} }',
      "  ]",
      "}",
    ),
    { "fixtures/home/": "", "fixtures/file.txt": "not a directory" },
  );
  assertEquals(problems.map((p) => `${p.line}:${p.column} ${p.pointer}`), [
    "5:37 /cases/1/home",
    "6:37 /cases/2/home",
  ]);
  assert(
    problems[0]?.message.startsWith(
      'Invalid scenario "s.test.jsonc": home directory "fixtures/nowhere" does not exist (looked for "',
    ),
    problems[0]?.message,
  );
  assertEquals(
    problems[1]?.message,
    'Invalid scenario "s.test.jsonc": home "fixtures/file.txt" is not a directory at /cases/2/home',
  );
});

Deno.test("a settings file that is missing or not JSON is reported at its field", async () => {
  const problems = await problemsOf(
    lines(
      "{",
      '  "settings": "missing.json",',
      '  "cases": [',
      '    { "name": "a", "event": "Stop", "settings": "bad.json", "expect": {"errors": 0} }',
      "  ]",
      "}",
    ),
    { "bad.json": '{\n  "hooks": {\n    "Stop": []\n  \n' },
  );
  assertEquals(problems.map((p) => `${p.line}:${p.column} ${p.pointer}`), [
    "2:3 /settings",
    "4:37 /cases/0/settings",
  ]);
  assert(problems[0]?.message.includes('settings file "missing.json" does not exist'));
  assertEquals(
    problems[1]?.message,
    'Invalid scenario "s.test.jsonc": cannot use settings file "bad.json": invalid JSON: ' +
      'expected "}" (line 5, column 1) at /cases/0/settings',
  );
});

Deno.test("a settings file that is a FIFO, a link to /dev/zero or over 4 MiB is reported at its field, and nothing waits", async () => {
  const scenario = lines(
    "{",
    '  "cases": [',
    '    { "name": "fifo", "event": "Stop", "settings": "fifo.json", "expect": {"errors": 0} },',
    '    { "name": "zero", "event": "Stop", "settings": "zero.json", "expect": {"errors": 0} },',
    '    { "name": "big", "event": "Stop", "settings": "big.json", "expect": {"errors": 0} }',
    "  ]",
    "}",
  );
  const problems = await problemsOf(scenario, {}, async (dir) => {
    await makeFifo(`${dir}/fifo.json`);
    await linkToDevZero(`${dir}/zero.json`);
    await writeSpaces(`${dir}/big.json`, 4 * 1024 * 1024 + 1);
  });
  assertEquals(problems.map((p) => `${p.line} ${p.message}`), [
    '3 Invalid scenario "s.test.jsonc": cannot read settings file "fifo.json": it is a FIFO, ' +
    "not a regular file at /cases/0/settings",
    '4 Invalid scenario "s.test.jsonc": cannot read settings file "zero.json": it is a ' +
    "character device, not a regular file at /cases/1/settings",
    '5 Invalid scenario "s.test.jsonc": cannot read settings file "big.json": it is over the ' +
    "4 MiB limit (4194305 bytes) at /cases/2/settings",
  ]);
});
