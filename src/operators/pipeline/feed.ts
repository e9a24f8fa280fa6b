// What `replay` hands its operator: the values, as a Subject hands them to its subscribers, without
// what RxJS's Subject costs per value (a closure for its error context, an iterator over its
// observers): at thousands of values a second that was a quarter of a replayed value's garbage.
import { Observable, type Subscriber } from 'rxjs';

/** A multicast source of values, for the operator `replay` wraps (it may subscribe more than once). */
export class Feed<T> {
  /** The subscribers, replaced (never changed) when one comes or goes: a `next` goes to those it began with. */
  #subscribers: readonly Subscriber<T>[] = [];
  /** How the feed ended, for subscribers that come later: they hear it at once, as a Subject's do. */
  #ended: { readonly error?: unknown; readonly failed: boolean } | undefined;

  /** The values, for the operator. */
  readonly values = new Observable<T>((subscriber) => {
    const ended = this.#ended;
    if (ended) return ended.failed ? subscriber.error(ended.error) : subscriber.complete();
    this.#subscribers = [...this.#subscribers, subscriber];
    return () => {
      this.#subscribers = this.#subscribers.filter((s) => s !== subscriber);
    };
  });

  next(value: T): void {
    const subscribers = this.#subscribers;
    for (let i = 0; i < subscribers.length; i++) subscribers[i]!.next(value);
  }

  error(error: unknown): void {
    this.#end({ error, failed: true });
  }

  complete(): void {
    this.#end({ failed: false });
  }

  #end(ended: { readonly error?: unknown; readonly failed: boolean }): void {
    if (this.#ended) return;
    this.#ended = ended;
    const subscribers = this.#subscribers;
    this.#subscribers = [];
    for (const subscriber of subscribers) {
      if (ended.failed) subscriber.error(ended.error);
      else subscriber.complete();
    }
  }
}
