import { useStdout } from "ink";
import { useEffect, useState } from "react";

export interface TerminalSize {
  columns: number;
  rows: number;
}

function read(stdout: NodeJS.WriteStream): TerminalSize {
  // A stream that is not a TTY has no size; 80×30 keeps the layout sane (tests, pipes).
  return { columns: stdout.columns || 80, rows: stdout.rows || 30 };
}

/** The terminal's size, updated on every 'resize' of stdout. */
export function useTerminalSize(): TerminalSize {
  const { stdout } = useStdout();
  const [size, setSize] = useState(() => read(stdout));
  useEffect(() => {
    const onResize = (): void => setSize(read(stdout));
    stdout.on("resize", onResize);
    return () => {
      stdout.off("resize", onResize);
    };
  }, [stdout]);
  return size;
}
