import type { ArbiterEvent } from './wire.ts';

/**
 * Events waiting for a flush, in arrival order. Bounded so that a long outage without an
 * offline store costs memory up to `capacity` and no more; what does not fit is counted, since
 * a silent drop would look like traffic that never happened.
 */
export class EventQueue {
  private items: ArbiterEvent[] = [];
  private droppedCount = 0;

  constructor(private readonly capacity: number) {}

  get length(): number {
    return this.items.length;
  }

  get dropped(): number {
    return this.droppedCount;
  }

  /** False when the queue was full and the event was dropped. */
  push(event: ArbiterEvent): boolean {
    if (this.items.length >= this.capacity) {
      this.droppedCount++;
      return false;
    }
    this.items.push(event);
    return true;
  }

  /** Removes and returns up to `count` of the oldest events. */
  take(count: number): ArbiterEvent[] {
    return this.items.splice(0, count);
  }
}
