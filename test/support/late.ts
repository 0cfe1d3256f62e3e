/**
 * A value that mocha hooks fill in later (in `before` or `beforeEach`) and that the
 * suite's body uses under its own name: `late<T>()` returns a stand-in whose property
 * reads go to the value set last. Reading it before a hook has set it throws, naming it.
 * This keeps a suite's tests unchanged when its copied `let x; before(() => x = …)`
 * block becomes one helper call.
 */
export interface Late<T extends object> {
  /** The stand-in: use it like the value itself (inside tests and hooks). */
  readonly value: T;
  set(value: T): void;
  readonly isSet: boolean;
}

export function late<T extends object>(what: string): Late<T> {
  let current: T | undefined;
  const target = (): T => {
    if (current === undefined) throw new Error(`${what} is not ready: it is set by a mocha hook, read it inside a test or a later hook`);
    return current;
  };
  const value = new Proxy({} as T, {
    get(_, property) {
      const object = target();
      const result: unknown = Reflect.get(object, property);
      return typeof result === 'function' ? (result as (...args: unknown[]) => unknown).bind(object) : result;
    },
    set(_, property, next) {
      return Reflect.set(target(), property, next);
    },
    has: (_, property) => Reflect.has(target(), property),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_, property) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), property);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
  return {
    value,
    set: (next) => void (current = next),
    get isSet() {
      return current !== undefined;
    },
  };
}
