/**
 * A session's modes and config options (acp.md): the permission policies are the modes, and the
 * config options repeat the mode as a select (kept in sync), add the model the next prompt runs
 * on (when the agent has a model catalog) and the boolean "stop hooks continue the turn", for
 * clients that advertise boolean options (client_features.ts). Others are not offered it: a
 * select with on and off would put a control for a rare setting beside mode and model in every
 * editor, and the agent's `--[no-]stop-hooks-continue` sets it for them. A client that sets it
 * anyway (it knows the id) is obeyed.
 * Changes are recorded in the transcript: a session brought back keeps them.
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
} from "../../agent/permissions/permission_policy.ts";
import type { AgentSession } from "./agent_session.ts";
import type { ModelCatalog, ModelChoice } from "../model_catalog.ts";
import { invalidParams } from "../rpc_error.ts";

export const MODE_CONFIG_ID = "mode";
export const STOP_HOOKS_CONTINUE_CONFIG_ID = "stop_hooks_continue";
export const MODEL_CONFIG_ID = "model";
/** How the stop hooks option is named to the user (notices name it too). */
export const STOP_HOOKS_CONTINUE_NAME = "Stop hooks continue the turn";

export function sessionModes(session: AgentSession): SessionModeState {
  return sessionModeState(session.mode);
}

export function sessionConfigOptions(session: AgentSession): SessionConfigOption[] {
  const model = modelOption(session);
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
    ...(model === undefined ? [] : [model]),
    ...(session.clientFeatures.booleanConfigOptions ? [stopHooksContinueOption(session)] : []),
  ];
}

function stopHooksContinueOption(session: AgentSession): SessionConfigOption {
  return {
    id: STOP_HOOKS_CONTINUE_CONFIG_ID,
    name: STOP_HOOKS_CONTINUE_NAME,
    description:
      "When a Stop hook blocks, give its reason to the model and keep going instead of ending the turn",
    type: "boolean",
    currentValue: session.stopHooksContinue,
  };
}

/** The "model" option: the catalog's listing, and the model the next prompt runs on. */
function modelOption(session: AgentSession): SessionConfigOption | undefined {
  const current = session.modelId;
  if (session.modelCatalog === undefined || current === undefined) return undefined;
  return {
    id: MODEL_CONFIG_ID,
    name: "Model",
    description: "The model that answers the next prompt",
    category: "model",
    type: "select",
    currentValue: current,
    options: modelChoices(session.modelCatalog, current).map((choice) => ({
      value: choice.id,
      name: choice.name,
      ...(choice.description === undefined ? {} : { description: choice.description }),
    })),
  };
}

/** The listing, with the session's model even when the last listing lost it (a file removed). */
function modelChoices(catalog: ModelCatalog, current: string): readonly ModelChoice[] {
  if (catalog.offers(current)) return catalog.choices;
  return [...catalog.choices, { id: current, name: current }];
}

/** Picks the model of the session's next turn; a turn in progress finishes on its own. */
function applyModel(session: AgentSession, catalog: ModelCatalog, value: string): void {
  const current = session.modelId;
  if (value !== current && !catalog.offers(value)) {
    const values = modelChoices(catalog, current ?? catalog.defaultId).map((c) => `"${c.id}"`);
    throw invalidParams(`unknown model "${value}"; the models are ${values.join(", ")}`);
  }
  // The default is followed, not pinned: a session brought back runs the agent's model then.
  session.modelChoice = value === catalog.defaultId ? undefined : value;
  session.recordSettings();
}

/**
 * The model a restored session goes on with: the recorded choice while the catalog offers it;
 * one it no longer offers falls back to the default, and the log says so.
 */
export function restoredModelChoice(
  sessionId: string,
  recorded: string | undefined,
  catalog: ModelCatalog | undefined,
  log: (line: string) => void,
): string | undefined {
  if (recorded === undefined || recorded === catalog?.defaultId) return undefined;
  if (catalog?.mayOffer(recorded)) return recorded;
  const fallback = catalog === undefined ? "model" : `model "${catalog.defaultId}"`;
  log(
    `Session "${sessionId}" was on model "${recorded}", which this agent does not offer now: ` +
      `it goes on with the default ${fallback}`,
  );
  return undefined;
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
    case MODEL_CONFIG_ID:
      if (session.modelCatalog === undefined) break;
      if (typeof request.value !== "string") {
        throw invalidParams(`"${MODEL_CONFIG_ID}" takes a model id`);
      }
      applyModel(session, session.modelCatalog, request.value);
      return false;
  }
  const ids = sessionConfigOptions(session).map((option) => `"${option.id}"`);
  throw invalidParams(
    `unknown config option "${request.configId}"; the options are ${ids.join(", ")}`,
  );
}
