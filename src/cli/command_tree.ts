/**
 * The subcommand tree. Leaves load their module only when chosen, so `--version`, `--help` and
 * `hooks ...` never pay for what they do not use (node-llama-cpp above all).
 */
import type { CliCommand } from "./command_spec.ts";

export interface LeafNode {
  readonly kind: "leaf";
  readonly summary: string;
  readonly load: () => Promise<CliCommand>;
}

export interface GroupNode {
  readonly kind: "group";
  readonly summary: string;
  readonly description?: string;
  readonly children: Readonly<Record<string, LeafNode | GroupNode>>;
}

export const COMMAND_TREE: GroupNode = {
  kind: "group",
  summary: "an ACP agent on a local llama.cpp model that runs Claude Code hooks",
  description:
    "llama-agent reads the .claude/settings.json chain of a directory and runs its hooks with\n" +
    'Claude Code\'s contract. Start with "llama-agent hooks list" in a project.',
  children: {
    acp: {
      kind: "leaf",
      summary: "run the ACP agent on stdio (for editors such as Zed)",
      load: async () => (await import("./commands/acp.ts")).acpCommand,
    },
    doctor: {
      kind: "leaf",
      summary: "check whether a model can drive the agent's tools, and what to try if not",
      load: async () => (await import("./commands/doctor.ts")).doctorCommand,
    },
    hooks: {
      kind: "group",
      summary: "inspect, check and fire the hooks of a directory's settings chain",
      children: {
        init: {
          kind: "leaf",
          summary: "write a starter hooks-test suite from the hooks that fire here",
          load: async () => (await import("./commands/hooks_init.ts")).hooksInitCommand,
        },
        list: {
          kind: "leaf",
          summary: "list every hook registration, where it comes from and whether it fires",
          load: async () => (await import("./commands/hooks_list.ts")).hooksListCommand,
        },
        lint: {
          kind: "leaf",
          summary: "report settings problems and hooks that would not do what you expect",
          load: async () => (await import("./commands/hooks_lint.ts")).hooksLintCommand,
        },
        run: {
          kind: "leaf",
          summary: "fire one event against the merged settings and show what each hook did",
          load: async () => (await import("./commands/hooks_run.ts")).hooksRunCommand,
        },
        schema: {
          kind: "leaf",
          summary: "print the JSON Schema of hooks-test scenario files",
          load: async () => (await import("./commands/hooks_schema.ts")).hooksSchemaCommand,
        },
        test: {
          kind: "leaf",
          summary: "check the hooks against scenario files, hermetically (for CI)",
          load: async () => (await import("./commands/hooks_test.ts")).hooksTestCommand,
        },
      },
    },
  },
};
