import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";

/**
 * OAuth for one remote server. The SDK drives discovery, registration, PKCE and token refresh
 * through `provider`; when it needs a user login it calls `provider.redirectToAuthorization`, and
 * the manager then waits for `authorizationCode()` (a browser callback, or a headless flow),
 * exchanges it and connects again, once.
 */
export interface McpAuth {
  provider: OAuthClientProvider;
  authorizationCode?(signal: AbortSignal): Promise<string>;
}

/**
 * Runs `attempt`; when the server answers 401 and a login flow exists, gets a code, lets
 * `relogin` exchange it (and build a fresh client), and tries again. A login, and possibly one
 * step-up to wider scopes; more would be a loop.
 */
export async function withLogin<T>(
  auth: McpAuth | undefined,
  signal: AbortSignal,
  attempt: () => Promise<T>,
  relogin: (code: string) => Promise<void>,
): Promise<T> {
  for (let logins = 0; ; logins++) {
    try {
      return await attempt();
    } catch (e) {
      if (!(e instanceof UnauthorizedError) || !auth?.authorizationCode || logins >= 2) throw e;
      await relogin(await auth.authorizationCode(signal));
    }
  }
}
