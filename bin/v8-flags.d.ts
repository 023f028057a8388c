/** The V8 flags bin/orca.js sets before it loads anything; why each: bin/v8-flags.js. */
export declare const V8_FLAGS: readonly string[];
/** Whether argv asks for a headless run: a hint for what bin/orca.js loads before the flags (bin/v8-flags.js). */
export declare function headless(argv: readonly string[]): boolean;
