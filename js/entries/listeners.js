// The events of a hub or a pool: listeners by event name; a throwing
// listener is reported like any uncaught error, and the rest still run.
// Bundled into each entry that uses it.

export class Listeners {
  #sets;
  #owner;

  /** `names`: the events there are; `owner`: what the error for another one calls it. */
  constructor(names, owner) {
    this.#sets = Object.fromEntries(names.map((name) => [name, new Set()]));
    this.#owner = owner;
  }

  /** Adds `listener` to `event`; returns what removes it. */
  on(event, listener) {
    const listeners = this.#sets[event];
    if (listeners === undefined) throw new TypeError(`${this.#owner} has no ${event} event`);
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  emit(event, detail) {
    for (const listener of [...this.#sets[event]]) {
      try {
        listener(detail);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  clear() {
    for (const listeners of Object.values(this.#sets)) listeners.clear();
  }
}
