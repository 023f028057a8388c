export declare const BUILD_INPUTS: readonly string[];
export declare const BUILD_STAMP: string;
/** Every input file, workspace-relative, with the sha-1 of its content. */
export declare function inputHashes(root: string): Record<string, string>;
/** The input files that differ between the stamp and the tree now: changed, added or removed. */
export declare function changedInputs(stamp: Record<string, string>, now: Record<string, string>): string[];
/** Why dist/ does not match the tree, or null when it does. */
export declare function buildStaleness(root: string): string | null;
