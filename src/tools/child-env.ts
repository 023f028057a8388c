/** Variables that hold a model provider's key, whatever the configured provider. */
const MODEL_KEY_VARIABLES = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"];

export interface ChildEnvOptions {
  /** The key orca uses for its model (`model.api_key`, often interpolated from another variable). */
  modelKey?: string;
  /** `tools.pass_model_key`: hand the key to commands anyway. */
  passModelKey?: boolean;
}

/**
 * The environment for commands orca runs: its own, without the model key. A command that can read
 * its environment (`env`, `/proc/self/environ`) could otherwise print the key into the model's
 * context, the session log, or a file. The key is dropped under any variable name that holds it.
 */
export function childEnv(base: NodeJS.ProcessEnv, opts: ChildEnvOptions = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, PAGER: "cat", GIT_PAGER: "cat", GIT_TERMINAL_PROMPT: "0" };
  if (opts.passModelKey) return env;
  for (const name of MODEL_KEY_VARIABLES) delete env[name];
  if (opts.modelKey) {
    for (const [name, value] of Object.entries(env)) if (value === opts.modelKey) delete env[name];
  }
  return env;
}
