/**
 * How a suite names a hook, in what `hooks init` writes and what `hooks test --update` writes
 * alike: the shortest hook reference a reader recognises (the script's file name, else the whole
 * command, URL or prompt start) that names that hook alone, so `matched: ["guard.sh"]` reads as
 * what it checks. Falls back to the registration id where every such reference is ambiguous.
 */
import type { Registration } from "../../hooks/registration.ts";
import { handlerText } from "../../hooks/handler_config.ts";

/** Paths of scripts a command names: `"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh`, `./x.py`. */
const SCRIPT_PATH = /[\w.\/${}"-]*\/[\w.-]+\.(sh|bash|py|js|mjs|cjs|ts|rb|pl|php)\b/g;

export function hookLabel(registration: Registration, all: readonly Registration[]): string {
  const text = handlerText(registration.handler);
  const others = all.filter((other) => other.id !== registration.id);
  const candidates = [
    ...scriptNames(text),
    // An inline command or a prompt: its first words, whole if it is short.
    start(text),
    text,
  ];
  const unique = candidates.find((candidate) =>
    candidate !== "" && text.includes(candidate) &&
    !others.some((other) =>
      other.id === candidate || handlerText(other.handler).includes(candidate)
    )
  );
  return unique ?? registration.id;
}

function scriptNames(text: string): string[] {
  return [...text.matchAll(SCRIPT_PATH)].map((m) => m[0].slice(m[0].lastIndexOf("/") + 1));
}

/** The first words of a text, up to about 40 characters. */
function start(text: string): string {
  if (text.length <= 40) return text;
  const cut = text.slice(0, 40);
  const space = cut.lastIndexOf(" ");
  return space > 10 ? cut.slice(0, space) : cut;
}
