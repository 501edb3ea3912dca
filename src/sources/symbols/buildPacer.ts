// How a background build shares the machine with requests: it yields the
// event loop between slices, and a build nobody waits on also gives way while
// a request is collecting (its git processes get both cores), for a bounded
// time per pause, until someone starts waiting on it.

import { setTimeout } from 'node:timers';

/**
 * A pause that does not keep the process alive: a server that has stopped
 * exits without waiting for a build nobody will use. (An unreferenced
 * setImmediate would not do: the loop then sleeps in its poll phase until some
 * other event comes.)
 */
function yieldTurn(): Promise<void> {
  return new Promise((resolve) => {
    setTimeout(resolve, 0).unref?.();
  });
}

export class BuildPacer {
  #whenIdle: (() => Promise<void>) | undefined;
  #release: (() => void) | undefined;

  /**
   * @param maxPauseMs the longest one pause gives way to requests. Requests that overlap without a gap
   * (a busy editor, several clients) would otherwise hold the build back for good; past this it sends
   * one more batch and pauses again.
   */
  constructor(private readonly maxPauseMs: number) {}

  /** Starts giving way to requests: `whenIdle` resolves at a moment no request is collecting. */
  giveWay(whenIdle: (() => Promise<void>) | undefined): void {
    this.#whenIdle = whenIdle;
  }

  /** Whether pauses wait for requests (false once someone waits on the build). */
  get givingWay(): boolean {
    return this.#whenIdle !== undefined;
  }

  /** Someone waits on the build, or it is closing: no more waiting for requests, and a paused one goes on now. */
  hurry(): void {
    this.#whenIdle = undefined;
    this.#release?.();
  }

  /** A turn of the event loop; while giving way, a moment no request is collecting or `maxPauseMs`, whichever comes first. */
  pause(): Promise<void> {
    const whenIdle = this.#whenIdle;
    if (!whenIdle) return yieldTurn();
    let timer: NodeJS.Timeout | undefined;
    return new Promise<void>((resolve) => {
      this.#release = resolve;
      void whenIdle().then(resolve);
      timer = setTimeout(resolve, this.maxPauseMs);
      timer.unref?.();
    }).finally(() => {
      clearTimeout(timer);
      this.#release = undefined;
    });
  }
}
