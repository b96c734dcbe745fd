/**
 * Gives `instance` its prototype's methods as own, bound, non-enumerable properties. `#private`
 * fields answer only to the instance itself, so without this a method called through a Proxy of
 * the client (Vue's `reactive()`, MobX) or detached (`const { assign } = client`) would throw a
 * TypeError, and the client promises never to throw from `assign` or `track`.
 */
export function bindMethods(instance: object, prototype: object): void {
  for (const name of Object.getOwnPropertyNames(prototype)) {
    const method: unknown = Reflect.get(prototype, name);
    if (name === 'constructor' || typeof method !== 'function') continue;
    Object.defineProperty(instance, name, {
      value: method.bind(instance),
      writable: true,
      configurable: true,
    });
  }
}
