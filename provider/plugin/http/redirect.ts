import { defaults } from "../../defaults";
import { RedirectRefusedError } from "../../errors";
import { quote } from "../../redaction";

/** Where a 3xx may lead: only same-origin 307/308 keep the POST and the token where they belong. Throws otherwise. */
export function redirectTarget(status: number, location: string, from: URL, hop: number): URL {
  let target: URL | undefined;
  try {
    target = new URL(location, from);
  } catch {
    target = undefined;
  }
  const shown = target ? `${target.origin}${target.pathname}` : quote(location, 200);
  if (!target || target.origin !== from.origin) throw new RedirectRefusedError(status, shown, "another origin");
  if (status !== 307 && status !== 308) throw new RedirectRefusedError(status, shown, "it would turn the POST into a GET");
  if (hop > defaults.maxRedirects) throw new RedirectRefusedError(status, shown, `more than ${defaults.maxRedirects} redirects`);
  return target;
}
