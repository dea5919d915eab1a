/**
 * Models for session cases: the session's scripted model, wrapped so that every request's
 * conversation is kept ("what the model received"), and the evaluator's scripted model, whose
 * turns are shared by every evaluation in the order the model calls are made, kept alike.
 */
import type {
  AssistantSegment,
  ConversationItem,
  GenerateRequest,
  Model,
  ModelSession,
} from "../../model/model.ts";
import { type ModelScript, scriptedModel } from "../../model/scripted/scripted_model.ts";

/** What the model was given on each call, as the pieces of text it read. */
export interface ModelRequestLog {
  /** Every call's conversation, in call order (a snapshot taken when the call was made). */
  readonly requests: readonly (readonly ConversationItem[])[];
}

/** The pieces of text of one conversation: system and user texts, assistant segments, results. */
export function conversationTexts(conversation: readonly ConversationItem[]): string[] {
  const texts: string[] = [];
  for (const item of conversation) {
    if (item.role !== "assistant") texts.push(item.text);
    else texts.push(...item.segments.flatMap(segmentTexts));
  }
  return texts;
}

function segmentTexts(segment: AssistantSegment): string[] {
  switch (segment.type) {
    case "text":
    case "thought":
      return [segment.text];
    case "tool_call":
      return [JSON.stringify(segment.input), segment.result];
    default:
      return segment satisfies never;
  }
}

/** Every distinct piece of text the model received, in the order it first appeared. */
export function receivedTexts(log: ModelRequestLog): string[] {
  const seen = new Set<string>();
  for (const request of log.requests) {
    for (const text of conversationTexts(request)) seen.add(text);
  }
  return [...seen];
}

/** `script` played back, with every request's conversation recorded in `log`. */
export function recordingModel(script: ModelScript): { model: Model; log: ModelRequestLog } {
  const requests: (readonly ConversationItem[])[] = [];
  const inner = scriptedModel(script, "scripted (hooks test)");
  const model: Model = {
    displayName: inner.displayName,
    async openSession(): Promise<ModelSession> {
      const session = await inner.openSession();
      return {
        ...(session.contextSize === undefined ? {} : { contextSize: session.contextSize }),
        generate(request: GenerateRequest) {
          // The turn loop appends to its arrays after the call: keep the conversation as sent.
          requests.push(structuredClone(request.conversation));
          return session.generate(request);
        },
        dispose: () => session.dispose(),
      };
    },
    dispose: () => inner.dispose(),
  };
  return { model, log: { requests } };
}

/**
 * One script for every evaluation: each model call of any prompt or agent hook plays the next
 * turn (a plain scripted model would start every evaluation at turn 1). Every call's
 * conversation is kept in `log` ("what the evaluator received").
 */
export function sharedScriptModel(script: ModelScript): { model: Model; log: ModelRequestLog } {
  const inner = scriptedModel(script, "scripted evaluator (hooks test)");
  const requests: (readonly ConversationItem[])[] = [];
  let shared: Promise<ModelSession> | undefined;
  const model: Model = {
    displayName: inner.displayName,
    async openSession(): Promise<ModelSession> {
      shared ??= inner.openSession();
      const session = await shared;
      return {
        generate: (request) => {
          requests.push(structuredClone(request.conversation));
          return session.generate(request);
        },
        // The cursor lives on: a later evaluation takes the next turn.
        dispose: () => Promise.resolve(),
      };
    },
    dispose: () => inner.dispose(),
  };
  return { model, log: { requests } };
}
