import type { z } from "zod";
import type { EventSchemas } from "./schema.js";

/**
 * The types of every event orca emits, inferred from the schemas (schema.ts), which are built only
 * when a log is read. Producers of an event that several places emit build it with its constructor
 * (constructors.ts), so the fields derived from others stay the same whoever emits it.
 */

export { eventSchema } from "./schema.js";

export type Access = z.infer<EventSchemas["accessSchema"]>;
export type ToolCall = z.infer<EventSchemas["toolCallSchema"]>;
export type ThinkingBlock = z.infer<EventSchemas["thinkingBlockSchema"]>;
export type Usage = z.infer<EventSchemas["usageSchema"]>;
export type FileTouch = z.infer<EventSchemas["fileTouchSchema"]>;
export type ChangeSource = z.infer<EventSchemas["changeSourceSchema"]>;
export type AgentStatus = z.infer<EventSchemas["agentStatusSchema"]>;
export type SessionStatus = z.infer<EventSchemas["sessionStatusSchema"]>;

export type OrcaEvent = z.infer<EventSchemas["eventSchema"]>;
export type EventType = OrcaEvent["type"];
export type EventOf<T extends EventType> = Extract<OrcaEvent, { type: T }>;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** What a producer hands to `emit`: the bus stamps `ts` and `sessionId`. */
export type EventInput = DistributiveOmit<OrcaEvent, "ts" | "sessionId">;
/** One event as a producer hands it to `emit`. */
export type InputOf<T extends EventType> = Omit<EventOf<T>, "ts" | "sessionId">;
export type EmitFn = (event: EventInput) => void;
