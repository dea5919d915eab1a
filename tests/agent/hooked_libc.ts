/**
 * A libc for tests that step into the opener's calls: `before` runs ahead of each call with its
 * name and arguments, so a test can record what was opened, or swap a path at an exact step
 * instead of racing for it.
 */
import type { Libc } from "../../src/os/files/libc.ts";

export interface LibcCall {
  readonly name: string;
  readonly args: readonly unknown[];
}

export function hookedLibc(libc: Libc, before: (call: LibcCall) => void): Libc {
  return new Proxy(libc, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        before({ name: String(key), args });
        return value.apply(target, args);
      };
    },
  });
}
