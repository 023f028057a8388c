import { ConfigError } from "../util/errors.js";

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replaces `${VAR}` and `${VAR:-default}` in every string of a parsed document. A variable that is
 * unset and has no default is an error naming where it was used: silently sending an empty token
 * to a server is worse than refusing to start.
 */
export function interpolate(value: unknown, env: NodeJS.ProcessEnv, file: string, path: string[] = []): unknown {
  if (typeof value === "string") {
    return value.replace(VAR, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== "") return found;
      if (fallback !== undefined) return fallback;
      throw new ConfigError(`${file}: ${path.join(".") || "(root)"}: environment variable ${name} is not set`);
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => interpolate(item, env, file, [...path, String(i)]));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, interpolate(item, env, file, [...path, key])]),
    );
  }
  return value;
}
