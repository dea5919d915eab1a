/** The fields of a PostToolUseFailure payload after the turn's (and a profile's own), in order. */
export const POST_FAILURE_KEYS = [
  "tool_name",
  "tool_input",
  "tool_use_id",
  "error",
  "is_interrupt",
  "duration_ms",
] as const;
