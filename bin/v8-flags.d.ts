/** The V8 flags bin/orca.js sets before it loads anything; why each: bin/v8-flags.js. */
export declare const V8_FLAGS: readonly string[];
