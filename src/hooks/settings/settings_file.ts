/**
 * Reading one settings file: JSONC text in, the top-level keys we honour out (`hooks`,
 * `disableAllHooks`, and the plugin keys `enabledPlugins` and `extraKnownMarketplaces`), with a
 * way back from any JSON pointer to a line and column so every later diagnostic can say where
 * its entry is.
 *
 * Files are read leniently (comments and trailing commas accepted), but Claude Code rejects
 * both, so where they were used is recorded for `hooks lint`.
 */
import { type Node, type ParseError, parseTree, printParseErrorCode, visit } from "jsonc-parser";
import type { ParseOptions } from "jsonc-parser";
import { errorMessage } from "../../error.ts";
import { LineIndex, type Position, withoutBom } from "../../text_position.ts";
import { objectValue } from "./jsonc_value.ts";
import { type Diagnostic, jsonPointer } from "../diagnostic.ts";

export type { Position } from "../../text_position.ts";

/** Where a file used JSONC syntax that Claude Code would reject. */
export interface JsoncUsage {
  readonly comments: readonly Position[];
  /** Position of each comma that is followed by a closing `}` or `]`. */
  readonly trailingCommas: readonly Position[];
}

export interface SettingsFile {
  readonly path: string;
  /** The top-level `hooks` object; undefined when absent or not an object (then diagnosed). */
  readonly hooks: Readonly<Record<string, unknown>> | undefined;
  /** The top-level `disableAllHooks`; undefined when absent or not a boolean (then diagnosed). */
  readonly disableAllHooks: boolean | undefined;
  /**
   * The top-level `enabledPlugins` (`<name>@<marketplace>` → on or off), without the entries
   * whose value is not a boolean (each diagnosed); undefined when absent or not an object.
   */
  readonly enabledPlugins: Readonly<Record<string, boolean>> | undefined;
  /** The top-level `extraKnownMarketplaces`, as written; undefined when absent or not an object. */
  readonly extraKnownMarketplaces: Readonly<Record<string, unknown>> | undefined;
  readonly jsonc: JsoncUsage;
  /**
   * The position of the entry a JSON pointer names: a property's key, or an array element. A
   * pointer into something the file lacks (a required field that is missing) resolves to its
   * nearest existing ancestor, so a diagnostic always has a line.
   */
  positionOf(pointer: string): Position;
  /**
   * The parse tree, every property of an object kept in order (a repeated key included);
   * undefined for an empty file.
   */
  readonly root: Node | undefined;
  /** The position of an offset into the text (after any byte order mark). */
  positionAt(offset: number): Position;
}

export interface SettingsFileResult {
  /** Undefined when the file is unparseable or its top level is not an object. */
  readonly settings: SettingsFile | undefined;
  /** File-level problems only; entries inside `hooks` are validated by the chain loader. */
  readonly diagnostics: readonly Diagnostic[];
}

const STRICT: ParseOptions = {
  disallowComments: true,
  allowTrailingComma: false,
  allowEmptyContent: true,
};
const LENIENT: ParseOptions = {
  disallowComments: false,
  allowTrailingComma: true,
  allowEmptyContent: true,
};
const NO_JSONC: JsoncUsage = { comments: [], trailingCommas: [] };

const PARSE_ERROR_TEXT: Readonly<Record<string, string>> = {
  InvalidSymbol: "unexpected character",
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "expected a property name",
  ValueExpected: "expected a value",
  ColonExpected: 'expected ":"',
  CommaExpected: 'expected ","',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: "expected the end of the file",
  InvalidCommentToken: "invalid comment",
  UnexpectedEndOfComment: "unterminated comment",
  UnexpectedEndOfString: "unterminated string",
  UnexpectedEndOfNumber: "unterminated number",
  InvalidUnicode: "invalid unicode escape",
  InvalidEscapeCharacter: "invalid escape character",
  InvalidCharacter: "invalid character in string",
};

/**
 * Parses the text of one settings file. Never throws: every problem is a diagnostic. An empty
 * file is treated as `{}`: it is what `touch .claude/settings.json` leaves behind.
 */
export function parseSettingsFile(path: string, rawText: string): SettingsFileResult {
  // An editor's byte order mark is invisible to the user, so columns are counted without it.
  const text = withoutBom(rawText).body;
  const lines = new LineIndex(text);
  const fileProblem = (code: Diagnostic["code"], offset: number, message: string) => ({
    settings: undefined,
    diagnostics: [{
      code,
      severity: "error",
      file: path,
      pointer: "",
      ...lines.at(offset),
      message,
    }],
  } satisfies SettingsFileResult);

  let root: Node | undefined;
  let jsonc = NO_JSONC;
  try {
    const strictErrors: ParseError[] = [];
    root = parseTree(text, strictErrors, STRICT);
    if (strictErrors.length > 0) {
      // Only files that are not plain JSON pay for the second, lenient pass.
      const lenient = scanLenient(text, lines);
      if (lenient.firstError) {
        const { code, offset } = lenient.firstError;
        const detail = PARSE_ERROR_TEXT[printParseErrorCode(code)] ?? "unexpected input";
        return fileProblem("SETTINGS_PARSE", offset, `Invalid JSON: ${detail}`);
      }
      jsonc = lenient.jsonc;
      root = parseTree(text, [], LENIENT);
    }
  } catch (error) {
    // The parser recurses per nesting level; absurdly deep input overflows the stack.
    const detail = error instanceof RangeError ? "nesting is too deep" : errorMessage(error);
    return fileProblem("SETTINGS_PARSE", 0, `Invalid JSON: ${detail}`);
  }
  if (root === undefined) {
    return { settings: emptySettings(path, jsonc), diagnostics: [] };
  }
  if (root.type !== "object") {
    return fileProblem("SETTINGS_INVALID", root.offset, "Settings must be a JSON object");
  }

  const diagnostics: Diagnostic[] = [];
  const positionOf = (pointer: string) => lines.at(offsetOf(root, pointer));
  const invalid = (pointer: string, message: string) =>
    diagnostics.push({
      code: "SETTINGS_INVALID",
      severity: "error",
      file: path,
      pointer,
      ...positionOf(pointer),
      message,
    });

  let hooks: Record<string, unknown> | undefined;
  const hooksNode = propertyValue(root, "hooks");
  if (hooksNode?.type === "object") {
    try {
      hooks = objectValue(hooksNode);
    } catch (error) {
      invalid("/hooks", `"hooks" cannot be read: ${errorMessage(error)}`);
    }
  } else if (hooksNode !== undefined) {
    invalid("/hooks", `"hooks" must be an object mapping event names to matcher groups`);
  }

  let disableAllHooks: boolean | undefined;
  const disableNode = propertyValue(root, "disableAllHooks");
  if (disableNode?.type === "boolean") {
    disableAllHooks = disableNode.value === true;
  } else if (disableNode !== undefined) {
    invalid("/disableAllHooks", `"disableAllHooks" must be true or false`);
  }

  const enabledPlugins = readEnabledPlugins(propertyValue(root, "enabledPlugins"), invalid);
  let extraKnownMarketplaces: Record<string, unknown> | undefined;
  const marketplacesNode = propertyValue(root, "extraKnownMarketplaces");
  if (marketplacesNode?.type === "object") {
    try {
      extraKnownMarketplaces = objectValue(marketplacesNode);
    } catch (error) {
      invalid(
        "/extraKnownMarketplaces",
        `"extraKnownMarketplaces" cannot be read: ${errorMessage(error)}`,
      );
    }
  } else if (marketplacesNode !== undefined) {
    invalid(
      "/extraKnownMarketplaces",
      `"extraKnownMarketplaces" must be an object mapping marketplace names to their sources`,
    );
  }

  const positionAt = (offset: number) => lines.at(offset);
  return {
    settings: {
      path,
      hooks,
      disableAllHooks,
      enabledPlugins,
      extraKnownMarketplaces,
      jsonc,
      positionOf,
      root,
      positionAt,
    },
    diagnostics,
  };
}

/** `enabledPlugins`: each id on or off; a value that is neither is diagnosed and left out. */
function readEnabledPlugins(
  node: Node | undefined,
  invalid: (pointer: string, message: string) => void,
): Record<string, boolean> | undefined {
  if (node === undefined) return undefined;
  if (node.type !== "object") {
    invalid(
      "/enabledPlugins",
      `"enabledPlugins" must be an object mapping plugin ids to true or false`,
    );
    return undefined;
  }
  const enabled: Record<string, boolean> = {};
  for (const property of node.children ?? []) {
    const id = property.children?.[0]?.value;
    const value = property.children?.[1];
    if (typeof id !== "string" || value === undefined) continue;
    if (value.type === "boolean") {
      // defineProperty, not assignment: an id named "__proto__" must stay an ordinary key.
      Object.defineProperty(enabled, id, {
        value: value.value === true,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      delete enabled[id];
      invalid(
        jsonPointer(["enabledPlugins", id]),
        `"enabledPlugins" entry "${id}" must be true or false`,
      );
    }
  }
  return enabled;
}

function emptySettings(path: string, jsonc: JsoncUsage): SettingsFile {
  return {
    path,
    hooks: undefined,
    disableAllHooks: undefined,
    enabledPlugins: undefined,
    extraKnownMarketplaces: undefined,
    jsonc,
    positionOf: () => ({ line: 1, column: 1 }),
    root: undefined,
    positionAt: () => ({ line: 1, column: 1 }),
  };
}

interface LenientScan {
  readonly firstError: { readonly code: number; readonly offset: number } | undefined;
  readonly jsonc: JsoncUsage;
}

/** One lenient pass that finds real syntax errors and every comment and trailing comma. */
function scanLenient(text: string, lines: LineIndex): LenientScan {
  const comments: Position[] = [];
  const trailingCommas: Position[] = [];
  let firstError: LenientScan["firstError"];
  // A comma is trailing when the next token after it closes its object or array.
  let pendingComma: number | undefined;
  const clear = () => {
    pendingComma = undefined;
  };
  const close = () => {
    if (pendingComma !== undefined) trailingCommas.push(lines.at(pendingComma));
    pendingComma = undefined;
  };
  visit(text, {
    onComment: (offset) => void comments.push(lines.at(offset)),
    onSeparator: (character, offset) => {
      pendingComma = character === "," ? offset : undefined;
    },
    onObjectBegin: clear,
    onArrayBegin: clear,
    onObjectProperty: clear,
    onLiteralValue: clear,
    onObjectEnd: close,
    onArrayEnd: close,
    onError: (code, offset) => {
      firstError ??= { code, offset };
    },
  }, LENIENT);
  return { firstError, jsonc: { comments, trailingCommas } };
}

/** The value node of a property; the last one wins when a key repeats, as in `JSON.parse`. */
function propertyValue(object: Node, key: string): Node | undefined {
  const property = lastProperty(object, key);
  return property?.children?.[1];
}

function lastProperty(object: Node, key: string): Node | undefined {
  const children = object.children ?? [];
  for (let i = children.length - 1; i >= 0; i--) {
    const property = children[i];
    const keyNode = property?.children?.[0];
    if (keyNode?.value === key && property?.children?.[1] !== undefined) return property;
  }
  return undefined;
}

/** Offset of the deepest node a pointer reaches: the key for properties, else the element. */
function offsetOf(root: Node, pointer: string): number {
  if (pointer === "") return root.offset;
  let node = root;
  let offset = root.offset;
  for (const segment of pointer.slice(1).split("/")) {
    const key = segment.replaceAll("~1", "/").replaceAll("~0", "~");
    if (node.type === "object") {
      const property = lastProperty(node, key);
      const value = property?.children?.[1];
      if (property === undefined || value === undefined) break;
      offset = property.offset;
      node = value;
    } else if (node.type === "array" && /^(0|[1-9][0-9]*)$/.test(key)) {
      const element = node.children?.[Number(key)];
      if (element === undefined) break;
      offset = element.offset;
      node = element;
    } else {
      break;
    }
  }
  return offset;
}

/** Maps offsets to lines and columns; line starts are found on first use. */
