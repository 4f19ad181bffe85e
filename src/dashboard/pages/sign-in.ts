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

/** `setPasswordCommand`: the whole command line to paste, with the data directory or database this server uses. */
export function passwordNotSetPage(setPasswordCommand: string): string {
  return layout(
    "Set a password",
    html`<h2>No dashboard password is set</h2>
<p class="notice">The dashboard accepts no sign-in until the account holder sets a password, in either of two ways:</p>
<ol>
  <li>On the server, run <code>${setPasswordCommand}</code> and type the password (at least 12 characters) on its standard input, for example <code>printf '%s' 'your long password' | ${setPasswordCommand}</code>. It takes effect at once.</li>
  <li>Or start the server with the environment variable <code>RISKCHECK_ADMIN_PASSWORD</code> set to the password.</li>
</ol>
<p>Then reload this page.</p>`,
  );
}
