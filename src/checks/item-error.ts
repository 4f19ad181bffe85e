/** A value that cannot be checked: the error the GET endpoint answers for it, as a batch item or a scan row carries it. */
export interface CheckError {
  readonly status: 400;
  readonly error: string;
  readonly message: string;
}

export const CHECK_ERRORS = Object.freeze({
  invalidEmail: Object.freeze<CheckError>({
    status: 400,
    error: "invalid_email",
    message: "The provided email address is not valid",
  }),
  invalidIp: Object.freeze<CheckError>({ status: 400, error: "invalid_ip", message: "invalid IP address format" }),
  /** An assessment with nothing to assess. */
  noValue: Object.freeze<CheckError>({
    status: 400,
    error: "missing_parameter",
    message: "Give an email address (email), an IP address (ip, or caller_ip for the caller's own) or both",
  }),
  invalidAssessItem: Object.freeze<CheckError>({
    status: 400,
    error: "invalid_item",
    message: 'An assess item is an object {"email": "...", "ip": "...", "event": "..."}, one value or both',
  }),
  invalidEvent: Object.freeze<CheckError>({
    status: 400,
    error: "invalid_event",
    message: "event is a label of 1 to 64 letters, digits, '_', '.', ':' or '-' (signup, login, payment, or your own)",
  }),
});

/** An invalid value's place in an answer: the value, and the error the GET endpoint gives it. Its JSON is the item's. */
export interface ItemError {
  readonly input: unknown;
  readonly error: string;
  readonly message: string;
}

export function itemError(input: unknown, { error, message }: CheckError): ItemError {
  return { input, error, message };
}
