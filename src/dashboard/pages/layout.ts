import { type SafeHtml, html } from "../html.ts";

export function layout(title: string, body: SafeHtml, options: { csrfToken?: string } = {}): string {
  const signOut = options.csrfToken
    ? html`<form class="inline" method="post" action="/dashboard/sign-out"><input type="hidden" name="csrf" value="${options.csrfToken}"><button class="secondary" type="submit">Sign out</button></form>`
    : "";
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · riskcheck</title>
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<link rel="icon" href="/dashboard/assets/icon.svg" type="image/svg+xml">
</head>
<body>
<header><h1>riskcheck</h1>${signOut}</header>
<main>
${body}
</main>
<script src="/dashboard/assets/dashboard.js" defer></script>
</body>
</html>
`.value;
}
