import { PUSH_EVENT_TYPES, PushEventType } from '@app/events';

/** A webhook's subscribed events as stored: one bit per type, in PUSH_EVENT_TYPES' order (append new types only). */
export function eventBits(types: readonly PushEventType[]): number {
  return types.reduce((bits, type) => bits | (1 << PUSH_EVENT_TYPES.indexOf(type)), 0);
}

export function eventTypes(bits: number): PushEventType[] {
  return PUSH_EVENT_TYPES.filter((_, index) => (bits & (1 << index)) !== 0);
}

export function subscribes(bits: number, type: string): boolean {
  const index = PUSH_EVENT_TYPES.indexOf(type as PushEventType);
  return index >= 0 && (bits & (1 << index)) !== 0;
}
