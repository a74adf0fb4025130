/**
 * JSON shapes stated once, at run time and for the compiler: a `Schema<T>` checks a value (`check`:
 * where it does not fit, empty when it does) and `Infer<typeof s>` is the TypeScript type it
 * describes. Objects are exact: a key not stated, or a stated one missing (unless `optional`), does
 * not fit. protocol.ts states gmonlens's wire messages with these. Pure: no `vscode` import.
 */

export interface Schema<T> {
  /** What in `value` does not fit, each with its JSON path (`$.nodes[0].id`); empty: it fits. */
  check(value: unknown, at?: string): string[];
  /** Set on `optional(...)` schemas: the key may be absent from its object. */
  readonly optional?: true;
  /** Never set: carries T for `Infer`. */
  readonly _type?: T;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

type Optional<T> = Schema<T> & { readonly optional: true };
type Fields = Record<string, Schema<unknown>>;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
type ObjectOf<F extends Fields> = Simplify<
  { [K in keyof F as F[K] extends Optional<unknown> ? never : K]: Infer<F[K]> } & {
    [K in keyof F as F[K] extends Optional<unknown> ? K : never]?: Infer<F[K]>;
  }
>;

const show = (v: unknown): string => {
  const text = JSON.stringify(v);
  return text === undefined ? String(v) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

function scalar<T>(what: string, ok: (v: unknown) => boolean): Schema<T> {
  return { check: (v, at = "$") => (ok(v) ? [] : [`${at}: ${show(v)} is not ${what}`]) };
}

export const num: Schema<number> = scalar("a number", (v) => typeof v === "number" && Number.isFinite(v));
export const int: Schema<number> = scalar("an integer", (v) => Number.isInteger(v));
export const str: Schema<string> = scalar("a string", (v) => typeof v === "string");
export const bool: Schema<boolean> = scalar("true or false", (v) => typeof v === "boolean");
export const nul: Schema<null> = scalar("null", (v) => v === null);

export function lit<const T extends readonly (string | number | boolean)[]>(...values: T): Schema<T[number]> {
  return scalar(`one of ${show(values)}`, (v) => values.includes(v as T[number]));
}

export function nullable<T>(s: Schema<T>): Schema<T | null> {
  return { check: (v, at = "$") => (v === null ? [] : s.check(v, at)) };
}

export function optional<T>(s: Schema<T>): Optional<T> {
  return { check: s.check, optional: true };
}

export function arr<T>(item: Schema<T>): Schema<T[]> {
  return {
    check: (v, at = "$") =>
      Array.isArray(v) ? v.flatMap((x, i) => item.check(x, `${at}[${i}]`)) : [`${at}: ${show(v)} is not an array`],
  };
}

/** A fixed-length array, one schema per place (a command's arguments). */
export function tuple<const T extends readonly Schema<unknown>[]>(
  ...items: T
): Schema<{ -readonly [K in keyof T]: Infer<T[K]> }> {
  return {
    check: (v, at = "$") =>
      Array.isArray(v) && v.length === items.length
        ? items.flatMap((s, i) => s.check(v[i], `${at}[${i}]`))
        : [`${at}: ${show(v)} is not an array of ${items.length}`],
  };
}

/** A JSON object of exactly these keys (those of `optional` schemas may be absent). */
export function obj<F extends Fields>(fields: F): Schema<ObjectOf<F>> {
  return {
    check: (v, at = "$") => {
      if (typeof v !== "object" || v === null || Array.isArray(v)) {
        return [`${at}: ${show(v)} is not an object`];
      }
      const o = v as Record<string, unknown>;
      const out = Object.keys(o)
        .filter((k) => !(k in fields))
        .map((k) => `${at}: unknown key "${k}"`);
      for (const [k, s] of Object.entries(fields)) {
        if (k in o) {
          out.push(...s.check(o[k], `${at}.${k}`));
        } else if (!s.optional) {
          out.push(`${at}: key "${k}" is missing`);
        }
      }
      return out;
    },
  };
}

/** An object of any keys, each value of one schema (a path prefix -> path map). */
export function record<T>(value: Schema<T>): Schema<Record<string, T>> {
  return {
    check: (v, at = "$") =>
      typeof v === "object" && v !== null && !Array.isArray(v)
        ? Object.entries(v).flatMap(([k, x]) => value.check(x, `${at}.${k}`))
        : [`${at}: ${show(v)} is not an object`],
  };
}

/** Any one of the schemas; the problems of the closest (fewest problems) when none fits. */
export function union<const T extends readonly Schema<unknown>[]>(...options: T): Schema<Infer<T[number]>> {
  return {
    check: (v, at = "$") => {
      const tries = options.map((s) => s.check(v, at));
      if (tries.some((p) => p.length === 0)) {
        return [];
      }
      return tries.reduce((a, b) => (b.length < a.length ? b : a));
    },
  };
}

export function fits<T>(s: Schema<T>, v: unknown): v is T {
  return s.check(v).length === 0;
}
