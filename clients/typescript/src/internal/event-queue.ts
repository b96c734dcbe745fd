import type { ArbiterEvent } from './wire.ts';

/**
 * Events waiting for a flush, in arrival order. Bounded so that a long outage without an
 * offline store costs memory up to `capacity` and no more; what does not fit is counted, since
 * a silent drop would look like traffic that never happened. When full, exposures go first:
 * the user's next call (the next day at the latest) sends an exposure again, while a model
 * call or a conversion lost is gone for good.
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

  /**
   * `queued`, or, when the queue was full and an event was dropped (and counted): `replaced`
   * when the event took the place of the oldest queued exposure, `dropped` when it was itself
   * dropped (an exposure, or any event when no exposure is queued).
   */
  push(event: ArbiterEvent): 'queued' | 'replaced' | 'dropped' {
    if (this.items.length < this.capacity) {
      this.items.push(event);
      return 'queued';
    }
    this.droppedCount++;
    if (event.type === 'exposure') return 'dropped';
    const oldest = this.items.findIndex((queued) => queued.type === 'exposure');
    if (oldest < 0) return 'dropped';
    this.items.splice(oldest, 1);
    this.items.push(event);
    return 'replaced';
  }

  /** Removes and returns up to `count` of the oldest events. */
  take(count: number): ArbiterEvent[] {
    return this.items.splice(0, count);
  }
}
