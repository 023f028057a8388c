/**
 * What the input box adds to a prompt besides the typed words: the output of `!command`s run since
 * the last prompt (before the words) and the files named with `@path` (after them). The model reads
 * them in tagged blocks; the transcript shows each block as one line (displayPrompt), while the log
 * keeps the whole text, so a resumed session sees what the model saw.
 */

export interface ShellRun {
  command: string;
  output: string;
  exitCode: number | null;
}

export interface Attachment {
  path: string;
  text: string;
}

const attr = (s: string): string => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/\n/g, " ");

export function shellBlock(run: ShellRun): string {
  const code = run.exitCode === null ? "" : ` exit="${run.exitCode}"`;
  return `<user-shell command="${attr(run.command)}"${code}>\n${run.output}\n</user-shell>`;
}

export function attachmentBlock(a: Attachment): string {
  return `<attached-file path="${attr(a.path)}">\n${a.text}${a.text.endsWith("\n") ? "" : "\n"}</attached-file>`;
}

export function composePrompt(text: string, shell: readonly ShellRun[], attachments: readonly Attachment[]): string {
  const before = shell.length ? `The user ran these commands themselves; their output:\n${shell.map(shellBlock).join("\n")}\n\n` : "";
  const after = attachments.length ? `\n\n${attachments.map(attachmentBlock).join("\n")}` : "";
  return `${before}${text}${after}`;
}

const BLOCK = /<(user-shell|attached-file) (command|path)="([^"]*)"[^>]*>\n[\s\S]*?\n<\/\1>/g;
const unattr = (s: string): string => s.replace(/&quot;/g, '"').replace(/&amp;/g, "&");

/** The prompt as the transcript shows it: each block one line. */
export function displayPrompt(text: string): string {
  if (!text.includes("<user-shell ") && !text.includes("<attached-file ")) return text;
  return text
    .replace(/^The user ran these commands themselves; their output:\n/, "")
    .replace(BLOCK, (_m, kind: string, _k, value: string) => (kind === "user-shell" ? `[ran ! ${unattr(value)}]` : `[attached @${unattr(value)}]`));
}

const SHOWN_LINES = 20;

/** How the transcript shows a `!command` the person ran (the user_shell event): the first lines of its output. */
export function userShellLines(run: ShellRun & { sandbox: string }): string[] {
  const lines = run.output.split("\n");
  const cut = lines.length > SHOWN_LINES ? [...lines.slice(0, SHOWN_LINES), `… ${lines.length - SHOWN_LINES} more lines`] : lines;
  const how = run.sandbox === "none" ? "outside any sandbox" : `in the ${run.sandbox} sandbox`;
  return [`! ${run.command}`, ...cut.map((l) => `  ${l}`), `(exit ${run.exitCode ?? "?"} · ran ${how}; the model sees it with your next message)`];
}
