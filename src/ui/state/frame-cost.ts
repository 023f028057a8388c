/**
 * What one frame costs, smoothed: the store spaces its flushes by it. A single slow sample is
 * usually not the frame — a GC, a warm-up task or a timer that ran between the flush and the end
 * of its render — and taken at face value it spaced the next frames out for seconds (a 40 ms
 * stall made the next dozen frames 250 ms apart). So a sample counts for at most GROWTH times the
 * estimate: a lasting rise still comes through, by ~40 % a frame. The first frame is such a
 * sample too when the caller gives a starting estimate.
 */
export class FrameCost {
  private value: number;

  /** `initial`: the cost assumed before the first frame, ms; with 0 the first frame's counts whole. */
  constructor(initial = 0) {
    this.value = initial;
  }

  /** The smoothed cost of a frame, ms. */
  get estimate(): number {
    return this.value;
  }

  record(ms: number): void {
    if (this.value === 0) {
      this.value = ms;
      return;
    }
    const sample = Math.min(ms, this.value * GROWTH);
    this.value = this.value * 0.8 + sample * 0.2;
  }
}

const GROWTH = 3;
