// What the package says, made from a code and its details by the one catalogue (provider/messages.ts): tests name
// the code and the details they expect (an id, a key, a URL) and never copy the prose, whose one check is
// docs/errors.md's sync with the catalogue (test/unit/messages.test.ts).
import {
  ErrorArgs,
  errorText,
  messages,
  StorageUserError,
  StorageUserWarningCode,
  WarningArgs,
  warningText,
} from "../../provider/messages";

/** The error's message, `[CODE] what happened: what to do`, as the package makes it from these details. */
export const errorSaid = (...args: ErrorArgs): string => new StorageUserError(...args).message;
/** The warning's text, `[CODE] …`, as the package makes it from these details. */
export const warningSaid = <C extends StorageUserWarningCode>(code: C, details: WarningArgs<C>): string =>
  warningText(code, details);
/** Why an argument is refused, after the property's name. */
export const reasons = messages.reasons;
/** The error's `[CODE] what happened`, without what to do: for a message whose advice depends on more than the test sets. */
export const errorWhat = (...args: ErrorArgs): string => `[${args[0]}] ${errorText(...args).what}`;
/** A detail the test cannot know (a temporary path): {@link errorMatching} lets anything stand there. */
export const unknown = "\u0000";
/** The error's whole message as a pattern, each {@link unknown} detail matching any text. */
export const errorMatching = (...args: ErrorArgs): RegExp =>
  new RegExp(
    `^${errorSaid(...args)
      .split(unknown)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
    "s",
  );
