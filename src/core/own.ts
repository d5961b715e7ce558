/**
 * The value `obj` holds under `key` itself, never one inherited from `Object.prototype`: keys
 * chosen by users (question ids such as "constructor") must not find `Object`'s own methods.
 */
export function ownValue<T>(obj: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}
