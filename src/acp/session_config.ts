/**
 * A session's modes and config options (acp.md): the permission policies are the modes, and the
 * config options repeat the mode as a select (kept in sync) and add the boolean "stop hooks
 * continue the turn". Changes are recorded in the transcript: a session brought back keeps them.
 */
import type {
  SessionConfigOption,
  SessionModeState,
  SetSessionConfigOptionRequest,
} from "@agentclientprotocol/sdk";
import {
  isPermissionModeId,
  PERMISSION_MODE_IDS,
  PERMISSION_MODES,
  sessionModeState,
} from "../agent/permission_policy.ts";
import type { AgentSession } from "./agent_session.ts";
import { invalidParams } from "./rpc_error.ts";

export const MODE_CONFIG_ID = "mode";
export const STOP_HOOKS_CONTINUE_CONFIG_ID = "stop_hooks_continue";

export function sessionModes(session: AgentSession): SessionModeState {
  return sessionModeState(session.mode);
}

export function sessionConfigOptions(session: AgentSession): SessionConfigOption[] {
  return [
    {
      id: MODE_CONFIG_ID,
      name: "Permission mode",
      description: "Which tool calls run without asking",
      category: "mode",
      type: "select",
      currentValue: session.mode,
      options: PERMISSION_MODE_IDS.map((id) => ({
        value: id,
        name: PERMISSION_MODES[id].name,
        description: PERMISSION_MODES[id].description,
      })),
    },
    {
      id: STOP_HOOKS_CONTINUE_CONFIG_ID,
      name: "Stop hooks continue the turn",
      description:
        "When a Stop hook blocks, give its reason to the model and keep going instead of ending the turn",
      type: "boolean",
      currentValue: session.stopHooksContinue,
    },
  ];
}

/** Sets a mode by id, recorded for a later load; false when it is already the current one. */
export function applyMode(session: AgentSession, modeId: string): boolean {
  if (!isPermissionModeId(modeId)) {
    throw invalidParams(
      `unknown mode "${modeId}"; the modes are ${
        PERMISSION_MODE_IDS.map((id) => `"${id}"`).join(", ")
      }`,
    );
  }
  const changed = session.mode !== modeId;
  session.mode = modeId;
  session.recordSettings();
  return changed;
}

/** Applies one config option; returns whether the mode changed (its own update is due then). */
export function applyConfigOption(
  session: AgentSession,
  request: SetSessionConfigOptionRequest,
): boolean {
  switch (request.configId) {
    case MODE_CONFIG_ID:
      if (typeof request.value !== "string") {
        throw invalidParams(`"${MODE_CONFIG_ID}" takes a mode id`);
      }
      return applyMode(session, request.value);
    case STOP_HOOKS_CONTINUE_CONFIG_ID:
      if (typeof request.value !== "boolean") {
        throw invalidParams(`"${STOP_HOOKS_CONTINUE_CONFIG_ID}" takes true or false`);
      }
      session.stopHooksContinue = request.value;
      session.recordSettings();
      return false;
    default:
      throw invalidParams(
        `unknown config option "${request.configId}"; the options are "${MODE_CONFIG_ID}", "${STOP_HOOKS_CONTINUE_CONFIG_ID}"`,
      );
  }
}
