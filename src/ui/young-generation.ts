import v8 from "node:v8";

/**
 * Keeps V8's young generation at its starting size (two 1 MB semispaces) for the dashboard's
 * process. A streaming dashboard allocates fast (a frame's strings, a pane's rows), so V8 grows
 * the young generation to its 16 MB semispaces within seconds and never gives the 32 MB back: a
 * third of the dashboard's RSS in bench render at 10k deltas a pane. Kept small, RSS there falls
 * by ~10 MB (the old generation takes a little more) at the same CPU and frame rate. The growth
 * factor is read each time V8 would grow the space, so setting it now takes effect; the command
 * line's --max-semi-space-size could not be set from here.
 */
export function keepYoungGenerationSmall(): void {
  v8.setFlagsFromString("--semi-space-growth-factor=1");
}
