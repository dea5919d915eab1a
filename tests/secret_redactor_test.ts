import { assertEquals } from "./helpers/assert.ts";
import {
  quotedServerText,
  REDACTED,
  SecretRedactor,
  SERVER_TEXT_LIMIT,
} from "../src/secret_redactor.ts";

const KEY = "sk-live-0123456789";

Deno.test("every secret in a text is redacted, a longer one that holds a shorter one whole", () => {
  const redactor = new SecretRedactor([KEY, "0123456789", "x"]);
  assertEquals(
    redactor.redact(`a ${KEY} b ${KEY}c 0123456789 x`),
    `a ${REDACTED} b ${REDACTED}c ${REDACTED} x`,
  );
});

Deno.test("a secret split across pieces is redacted, and the text around it is not held back", () => {
  const pieces = new SecretRedactor([KEY]).pieces();
  const shown = [
    pieces.push("your key is sk-li"),
    pieces.push("ve-01234"),
    pieces.push("56789 and more s"),
    pieces.push("o on"),
    pieces.end(),
  ];
  assertEquals(shown, ["your key is ", "", `${REDACTED} and more `, "so on", ""]);
});

Deno.test("text that only starts like a secret is passed on when the pieces end", () => {
  const pieces = new SecretRedactor([KEY]).pieces();
  assertEquals([pieces.push("ends with sk-"), pieces.end()], ["ends with ", "sk-"]);
});

Deno.test("a server's text is quoted on one line, redacted, and cut with the count of the rest", () => {
  const redactor = new SecretRedactor([KEY]);
  const long = `bad\n\n  key ${KEY} ` + "y".repeat(5_000_000);
  const quoted = quotedServerText(long, redactor);
  const flat = `bad key ${REDACTED} ` + "y".repeat(5_000_000);
  assertEquals(
    quoted,
    `${flat.slice(0, SERVER_TEXT_LIMIT)}... (${flat.length - SERVER_TEXT_LIMIT} more characters)`,
  );
  assertEquals(quotedServerText("short", redactor), "short");
});
