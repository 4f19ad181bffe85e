import { html } from "../html.ts";
import { layout } from "./layout.ts";

export function signInPage(csrfToken: string, error?: string): string {
  return layout(
    "Sign in",
    html`<h2>Sign in</h2>
${error ? html`<p class="notice error" role="alert">${error}</p>` : ""}
<form method="post" action="/dashboard/sign-in">
  <input type="hidden" name="csrf" value="${csrfToken}">
  <p><label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required autofocus></p>
  <p><button type="submit">Sign in</button></p>
</form>`,
  );
}

/**
 * What to do while no password is set. Anyone may see this page: it names no path, data
 * directory or database of the server; its start-up log prints the command line in full.
 */
export function passwordNotSetPage(): string {
  return layout(
    "Set a password",
    html`<h2>No dashboard password is set</h2>
<p class="notice">The dashboard accepts no sign-in until the account holder sets a password, in either of two ways:</p>
<ol>
  <li>On the server, run <code>riskcheck admin set-password</code> with the data directory (or database) the server uses, the password (at least 12 characters) on its standard input. The server's start-up log prints that command line in full, ready to paste: look for <code>No dashboard password yet</code>. It takes effect at once.</li>
  <li>Or start the server with the environment variable <code>RISKCHECK_ADMIN_PASSWORD</code> set to the password.</li>
</ol>
<p>Then reload this page.</p>`,
  );
}
