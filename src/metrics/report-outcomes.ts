/** Reports posted to POST /v1/reports, by what became of each. */
export class ReportOutcomes {
  accepted = 0;
  duplicate = 0;
  rejected = 0;

  *samples(): Generator<{ outcome: "accepted" | "duplicate" | "rejected"; count: number }> {
    yield { outcome: "accepted", count: this.accepted };
    yield { outcome: "duplicate", count: this.duplicate };
    yield { outcome: "rejected", count: this.rejected };
  }
}
