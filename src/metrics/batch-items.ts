/** Items answered by POST /v1/check/batch, by kind and result: a batch is one request in the request counts. */
export class BatchItemMetrics {
  emailsAnswered = 0;
  emailsInvalid = 0;
  ipsAnswered = 0;
  ipsInvalid = 0;
  assessAnswered = 0;
  assessInvalid = 0;

  *samples(): Generator<{ kind: "email" | "ip" | "assess"; result: "answered" | "invalid"; count: number }> {
    yield { kind: "email", result: "answered", count: this.emailsAnswered };
    yield { kind: "email", result: "invalid", count: this.emailsInvalid };
    yield { kind: "ip", result: "answered", count: this.ipsAnswered };
    yield { kind: "ip", result: "invalid", count: this.ipsInvalid };
    yield { kind: "assess", result: "answered", count: this.assessAnswered };
    yield { kind: "assess", result: "invalid", count: this.assessInvalid };
  }
}
