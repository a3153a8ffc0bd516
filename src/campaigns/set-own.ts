/**
 * Sets `object[key]` as an own, enumerable value, `__proto__` included: a file's column or field
 * named so is data like any other, where an assignment would change the object's prototype.
 * Plain objects rather than `Object.create(null)` ones, which V8 keeps as slower, larger
 * dictionaries: a million rows make a million of them.
 *
 * @example
 * const values = {};
 * setOwn(values, '__proto__', 'x'); // Object.keys(values): ['__proto__']
 */
export function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(object, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    object[key] = value;
  }
}
