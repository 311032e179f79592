/** What /readyz reports: ready once the engine answers and the templates are installed. */
export class Readiness {
  private state: { ready: boolean; reason: string } = { ready: false, reason: "starting" };

  get ready(): boolean {
    return this.state.ready;
  }

  get reason(): string {
    return this.state.reason;
  }

  markReady(reason = "ok"): void {
    this.state = { ready: true, reason };
  }

  markNotReady(reason: string): void {
    this.state = { ready: false, reason };
  }
}
