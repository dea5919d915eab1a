/**
 * The file types a search can be narrowed to (Grep's `type`), by the names ripgrep gives them,
 * each as the file names it covers.
 */
import { basename } from "node:path";

const EXTENSIONS: Readonly<Record<string, readonly string[]>> = {
  c: ["c", "h"],
  cpp: ["cpp", "cc", "cxx", "c++", "hpp", "hh", "hxx", "h++", "h", "inl", "ipp"],
  cs: ["cs", "csx"],
  css: ["css", "scss", "sass", "less"],
  dart: ["dart"],
  elixir: ["ex", "exs", "eex", "heex"],
  go: ["go"],
  haskell: ["hs", "lhs"],
  html: ["html", "htm", "xhtml"],
  java: ["java"],
  js: ["js", "jsx", "mjs", "cjs", "vue"],
  json: ["json", "jsonc", "json5"],
  jsonl: ["jsonl", "ndjson"],
  kotlin: ["kt", "kts"],
  lua: ["lua"],
  make: ["mk", "mak"],
  md: ["md", "markdown", "mdx", "mkd"],
  php: ["php", "phtml"],
  py: ["py", "pyi", "pyw"],
  rb: ["rb", "rake", "gemspec"],
  rust: ["rs"],
  scala: ["scala", "sc", "sbt"],
  sh: ["sh", "bash", "zsh", "ksh", "fish"],
  sql: ["sql"],
  svelte: ["svelte"],
  swift: ["swift"],
  toml: ["toml"],
  ts: ["ts", "tsx", "mts", "cts"],
  txt: ["txt"],
  xml: ["xml", "xsd", "xsl", "xslt", "svg"],
  yaml: ["yaml", "yml"],
  zig: ["zig"],
};

/** Names other tools use for the same types. */
const ALIASES: Readonly<Record<string, string>> = {
  javascript: "js",
  typescript: "ts",
  python: "py",
  ruby: "rb",
  rs: "rust",
  golang: "go",
  markdown: "md",
  shell: "sh",
  bash: "sh",
  yml: "yaml",
  csharp: "cs",
  "c++": "cpp",
  kt: "kotlin",
};

/** Whole file names a type also covers. */
const FILE_NAMES: Readonly<Record<string, readonly string[]>> = {
  make: ["Makefile", "makefile", "GNUmakefile"],
  sh: [".bashrc", ".bash_profile", ".zshrc", ".profile"],
  rb: ["Gemfile", "Rakefile"],
};

export const FILE_TYPE_NAMES: readonly string[] = Object.keys(EXTENSIONS);

/** A test of file paths for the type, or undefined for a type not known. */
export function fileTypeFilter(type: string): ((path: string) => boolean) | undefined {
  const lowered = type.trim().toLowerCase();
  const name = ALIASES[lowered] ?? lowered;
  const extensions = EXTENSIONS[name];
  if (extensions === undefined) return undefined;
  const suffixes = extensions.map((extension) => `.${extension}`);
  const names = FILE_NAMES[name] ?? [];
  return (path) => {
    const file = basename(path);
    return names.includes(file) || suffixes.some((suffix) => file.endsWith(suffix));
  };
}
