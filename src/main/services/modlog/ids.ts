// mod-YYYYMMDD-HHMMSS-NNN (UTC): sortable, readable, and unique within this log because the
// counter continues from the log's last id and never goes back when the clock does.

const STAMP_RE = /^mod-(\d{8}-\d{6})-(\d+)$/;

export function stampOf(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

export class ModificationIds {
  private stamp = '';
  private seq = 0;

  /** Continue after an id already in the log. */
  seed(lastId: string | undefined): void {
    const m = lastId ? STAMP_RE.exec(lastId) : null;
    if (!m || m[1] < this.stamp) return;
    if (m[1] > this.stamp || Number(m[2]) > this.seq) {
      this.stamp = m[1];
      this.seq = Number(m[2]);
    }
  }

  next(now = new Date()): string {
    const stamp = stampOf(now);
    if (stamp > this.stamp) {
      this.stamp = stamp;
      this.seq = 0;
    }
    this.seq++;
    return `mod-${this.stamp}-${String(this.seq).padStart(3, '0')}`;
  }
}
