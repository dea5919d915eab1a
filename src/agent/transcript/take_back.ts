/**
 * Text taken back out of an assistant message after it was streamed: what a repetition stop
 * drops (src/acp/turn/repetition_stop.ts), in the running turn and again when a transcript is read
 * back (a `taken_back` record), so that both hold the same message.
 */
import type { AssistantSegment } from "../../model/model.ts";

/** Removes the last `chars` characters of `type` from the message's last segments of that type. */
export function takeBack(
  segments: AssistantSegment[],
  type: "text" | "thought",
  chars: number,
): void {
  let left = chars;
  for (let i = segments.length - 1; i >= 0 && left > 0; i--) {
    const segment = segments[i]!;
    if (segment.type !== type) continue;
    const kept = Math.max(0, segment.text.length - left);
    left -= segment.text.length - kept;
    if (kept === 0) segments.splice(i, 1);
    else segments[i] = { type, text: segment.text.slice(0, kept) };
  }
}
