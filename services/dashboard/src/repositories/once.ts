/**
 * A value built on first use, then kept. Repositories build their prepared statements this way:
 * once per repository rather than per call, and not at construction, so an app can be built
 * (e.g. to generate its OpenAPI document) over a database object that is never queried.
 */
export const once = <T>(build: () => T): (() => T) => {
  let value: T | undefined;
  return () => (value ??= build());
};
