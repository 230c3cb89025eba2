/**
 * Random secrets the local API hands out (tokens, passwords). base64url text whose first
 * character is a letter or digit: one that begins with "-" is taken for a flag when it is pasted
 * after a command (`pulumi config set --secret storage:accessToken -z-EA6…` fails with `unknown
 * shorthand flag`: one token in 64 would). Redrawn rather than prefixed, so every kept
 * value is still uniform over its alphabet.
 */
import { randomBytes } from "node:crypto";

export function randomSecret(bytes = 24): string {
  for (;;) {
    const text = randomBytes(bytes).toString("base64url");
    if (/^[A-Za-z0-9]/.test(text)) return text;
  }
}
