/**
 * MCP env values that are credentials. Most env values are paths or flags (MEMORY_FILE_PATH,
 * PROJECT_ROOT); redacting those would blank the workspace path out of the log and break resume.
 */
export function secretEnvValues(env: Record<string, string>): string[] {
  return Object.entries(env)
    .filter(([name]) => /KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|CREDENTIAL|COOKIE|SESSION/i.test(name))
    .map(([, value]) => value);
}
