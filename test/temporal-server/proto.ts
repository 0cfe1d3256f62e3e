/**
 * Proto access for the stand-in: the reflection root shipped with @temporalio/proto,
 * short aliases for the message shapes used everywhere, and time/number conversions.
 */
import { google, temporal } from '@temporalio/proto';
import jsonRoot from '@temporalio/proto/protos/json-module';
import type { Root, Type } from 'protobufjs';
import type Long from 'long';

export { google, temporal };

export const root: Root = jsonRoot;

const typeCache = new Map<string, Type>();
export function lookupType(fullName: string): Type {
  let type = typeCache.get(fullName);
  if (!type) {
    type = root.lookupType(fullName.replace(/^\./, ''));
    typeCache.set(fullName, type);
  }
  return type;
}

export import api = temporal.api;
export import enums = temporal.api.enums.v1;
export const EventType = temporal.api.enums.v1.EventType;
export type EventType = temporal.api.enums.v1.EventType;
export const Status = temporal.api.enums.v1.WorkflowExecutionStatus;
export type Status = temporal.api.enums.v1.WorkflowExecutionStatus;
export const RetryState = temporal.api.enums.v1.RetryState;
export type RetryState = temporal.api.enums.v1.RetryState;
export const TimeoutType = temporal.api.enums.v1.TimeoutType;
export type TimeoutType = temporal.api.enums.v1.TimeoutType;
export const WftFailedCause = temporal.api.enums.v1.WorkflowTaskFailedCause;
export type WftFailedCause = temporal.api.enums.v1.WorkflowTaskFailedCause;

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
export type Payloads = temporal.api.common.v1.IPayloads;
export type Payload = temporal.api.common.v1.IPayload;
export type Failure = temporal.api.failure.v1.IFailure;
export type RetryPolicy = temporal.api.common.v1.IRetryPolicy;
export type Header = temporal.api.common.v1.IHeader;
export type Memo = temporal.api.common.v1.IMemo;
export type SearchAttributes = temporal.api.common.v1.ISearchAttributes;
export type Timestamp = google.protobuf.ITimestamp;
export type Duration = google.protobuf.IDuration;
export type Command = temporal.api.command.v1.ICommand;
export type ProtocolMessage = temporal.api.protocol.v1.IMessage;
export type WorkflowExecution = temporal.api.common.v1.IWorkflowExecution;
export type StartedAttrs = temporal.api.history.v1.IWorkflowExecutionStartedEventAttributes;

type LongLike = { toNumber(): number };

/**
 * int64 fields are typed `Long` by the generated declarations, but the encoder takes
 * plain numbers; the stand-in stores numbers (read them back with `num`).
 */
export function L(value: number): Long {
  return value as unknown as Long;
}
export type NumLike = number | LongLike | null | undefined;

export function num(value: NumLike): number {
  if (value === null || value === undefined) return 0;
  return typeof value === 'number' ? value : value.toNumber();
}

/** Milliseconds since epoch → Timestamp. */
export function ts(ms: number): Timestamp {
  const seconds = Math.floor(ms / 1000);
  return { seconds: L(seconds), nanos: Math.round((ms - seconds * 1000) * 1e6) };
}

/** Milliseconds → Duration. */
export function dur(ms: number): Duration {
  const seconds = Math.floor(ms / 1000);
  return { seconds: L(seconds), nanos: Math.round((ms - seconds * 1000) * 1e6) };
}

/** Timestamp or Duration → milliseconds (0 when absent). */
export function ms(value: { seconds?: NumLike; nanos?: number | null } | null | undefined): number {
  if (!value) return 0;
  return num(value.seconds) * 1000 + Math.floor((value.nanos ?? 0) / 1e6);
}

export function packAny(typeName: string, message: object): google.protobuf.IAny {
  const type = lookupType(typeName);
  return { type_url: `type.googleapis.com/${typeName}`, value: type.encode(type.fromObject(message)).finish() };
}

export function unpackAny(any: google.protobuf.IAny | null | undefined): { typeName: string; value: object } | undefined {
  if (!any?.type_url) return undefined;
  const typeName = any.type_url.replace(/^.*\//, '');
  const type = lookupType(typeName);
  return { typeName, value: type.decode(any.value ?? new Uint8Array()) };
}

/** A JSON payload (json/plain), the default data converter's format. */
export function jsonPayload(value: unknown, extraMetadata: Record<string, string> = {}): Payload {
  const metadata: Record<string, Uint8Array> = { encoding: Buffer.from('json/plain') };
  for (const [k, v] of Object.entries(extraMetadata)) metadata[k] = Buffer.from(v);
  return { metadata, data: Buffer.from(JSON.stringify(value)) };
}

/** Decodes a json/plain payload; undefined for anything else. */
export function decodePayload(payload: Payload | null | undefined): unknown {
  if (!payload?.data) return undefined;
  const encoding = payload.metadata?.encoding ? Buffer.from(payload.metadata.encoding).toString() : '';
  if (encoding === 'binary/null') return null;
  if (encoding !== 'json/plain') return undefined;
  try {
    return JSON.parse(Buffer.from(payload.data).toString()) as unknown;
  } catch {
    return undefined;
  }
}
