import { defaults } from "../../defaults";
import { StorageUserError } from "../../errors";
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
  if (!target || target.origin !== from.origin)
    throw new StorageUserError("REDIRECT_REFUSED", { status, location: shown, why: "another origin" });
  if (status !== 307 && status !== 308)
    throw new StorageUserError("REDIRECT_REFUSED", {
      status,
      location: shown,
      why: "it would turn the POST into a GET",
    });
  if (hop > defaults.maxRedirects)
    throw new StorageUserError("REDIRECT_REFUSED", {
      status,
      location: shown,
      why: `more than ${defaults.maxRedirects} redirects`,
    });
  return target;
}
