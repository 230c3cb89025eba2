/**
 * The one place secrets are kept out of messages: the plugin registers each access token it
 * resolves (`neverShow`), and text from outside (API error bodies, undici errors, a Location
 * header) is redacted against them where it is cut to length (`quote`) and again where an
 * error quotes it (errors.ts).
 */
const neverShown = new Set<string>();

/** Registers a value no message may show (each access token, as the plugin resolves it). */
export function neverShow(secret: string): void {
  if (secret.length > 3) neverShown.add(secret);
}

/** Replaces every occurrence of each secret (longer than 3 chars, and every registered one) by `[redacted]`. */
export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const s of [...secrets, ...neverShown]) {
    if (s && s.length > 3) out = out.split(s).join("[redacted]");
  }
  return out;
}

/** Outside text (an API error body, an undici error, a Location header) as messages quote it: redacted, then cut. */
export function quote(text: string, max: number): string {
  return redact(text).slice(0, max);
}
