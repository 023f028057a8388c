/** A configuration or usage problem: the CLI prints its one-line message and exits 2. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}
