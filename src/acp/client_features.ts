/**
 * What the client said at `initialize` that changes what the agent sends it, read once from its
 * capabilities (ACP schema v1, `ClientCapabilities.session`):
 *
 * - `configOptions.boolean`: only then may a session's config options hold `type: "boolean"`
 *   entries (the schema allows them with this capability alone; a strict client rejects a
 *   `session/new` answer that holds one it did not ask for);
 * - `notices`: only then may the agent send `notice` updates; otherwise what it has to tell the
 *   user goes as agent text, marked so that the conversation skips it.
 *
 * ACP has no capability for plans: model download progress goes as a plan to every client and,
 * at coarse steps, as a notice too (load_progress.ts).
 */
import type { ClientCapabilities } from "@agentclientprotocol/sdk";

export interface ClientFeatures {
  readonly booleanConfigOptions: boolean;
  readonly notices: boolean;
}

/** A client that advertised nothing (and `hooks test`'s sessions). */
export const NO_CLIENT_FEATURES: ClientFeatures = { booleanConfigOptions: false, notices: false };

export function clientFeatures(capabilities: ClientCapabilities): ClientFeatures {
  // Omitted and null both mean "not advertised"; `{}` advertises it.
  return {
    booleanConfigOptions: capabilities.session?.configOptions?.boolean != null,
    notices: capabilities.session?.notices != null,
  };
}
