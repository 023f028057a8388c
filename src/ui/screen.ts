/**
 * The terminal around the dashboard: alternate screen, hidden cursor, bracketed paste. Ink 6.8
 * has no option for the alternate screen, so it is entered and left by hand, and left again on
 * every way out: normal exit, a crash, SIGTERM / SIGHUP / SIGINT.
 */
export const ENTER = "\u001B[?1049h\u001B[H\u001B[2J\u001B[?25l\u001B[?2004h";
export const LEAVE = "\u001B[?2004l\u001B[?25h\u001B[?1049l";
/** Clears the alternate screen and homes the cursor; used only on resize. */
export const CLEAR = "\u001B[H\u001B[2J";

export type Signal = "SIGTERM" | "SIGHUP" | "SIGINT";

/** The shell's code for a process ended by `signal` (128 + its number). */
export const signalExitCode = (signal: Signal): number => (signal === "SIGTERM" ? 143 : signal === "SIGINT" ? 130 : 129);

export interface ScreenProcess {
  on(event: "exit", listener: () => void): unknown;
  on(event: "uncaughtException", listener: (error: Error) => void): unknown;
  on(event: Signal, listener: () => void): unknown;
  off(event: string, listener: (...args: never[]) => void): unknown;
  listenerCount(event: string): number;
}

export interface ScreenOptions {
  stdout: { write(chunk: string): unknown };
  /** Defaults to the real process. */
  proc?: ScreenProcess;
  /** Called after the terminal is restored when a signal arrives. */
  onSignal?: (signal: Signal) => void;
  /** Called after the terminal is restored on an uncaught error (default: print one line, exit 1). */
  onCrash?: (error: Error) => void;
}

export class Screen {
  private active = false;
  private readonly proc: ScreenProcess;
  private readonly handlers: [string, (...args: never[]) => void][] = [];

  constructor(private readonly opts: ScreenOptions) {
    this.proc = opts.proc ?? (process as unknown as ScreenProcess);
  }

  get isActive(): boolean {
    return this.active;
  }

  enter(): void {
    if (this.active) return;
    this.active = true;
    this.opts.stdout.write(ENTER);
    // Named so a leak is easy to spot in process.listeners().
    const orcaScreenExit = (): void => this.leave();
    const orcaScreenCrash = (error: Error): void => {
      this.leave();
      if (this.opts.onCrash) this.opts.onCrash(error);
      else {
        process.stderr.write(`orca: crashed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      }
    };
    const orcaScreenSignal = (signal: Signal): void => {
      this.leave();
      // Listening replaced Node's default action, so without a handler we still exit.
      if (this.opts.onSignal) this.opts.onSignal(signal);
      else process.exit(signalExitCode(signal));
    };
    this.listen("exit", orcaScreenExit);
    this.listen("uncaughtException", orcaScreenCrash);
    this.listen("SIGTERM", orcaScreenSignal);
    this.listen("SIGHUP", orcaScreenSignal);
    // Raw mode makes Ctrl+C a key; a SIGINT sent to the process (kill -INT, a supervisor) would end
    // it by Node's default action, which runs no exit handler and leaves the alternate screen up.
    this.listen("SIGINT", orcaScreenSignal);
  }

  /** Restores the terminal; safe to call more than once. */
  leave(): void {
    if (!this.active) return;
    this.active = false;
    this.opts.stdout.write(LEAVE);
    for (const [event, handler] of this.handlers.splice(0)) this.proc.off(event, handler);
  }

  clear(): void {
    if (this.active) this.opts.stdout.write(CLEAR);
  }

  private listen(event: string, handler: (...args: never[]) => void): void {
    (this.proc.on as (e: string, h: (...args: never[]) => void) => unknown)(event, handler);
    this.handlers.push([event, handler]);
  }
}
