// Model and tool output may carry escape sequences; printed raw they would move the cursor or
// recolour the terminal under Ink's feet, so the dashboard shows them inert.
const ANSI = /\u001B(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001B]*(?:\u0007|\u001B\\)|[@-Z\\-_])/g;
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/** Strips escape sequences and control characters; keeps newlines, expands tabs. */
export function sanitize(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(ANSI, "").replace(/\t/g, "  ").replace(CONTROL, "");
}
