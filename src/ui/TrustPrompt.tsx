import { Box, Text, useInput } from "ink";
import type React from "react";
import { useRef, useState } from "react";
import { useTerminalSize } from "./hooks/use-terminal-size.js";
import { pressOf, readsOf, type KeyPress } from "./keys.js";
import { displayLine } from "./format.js";
import { ScreenTitle } from "./ScreenTitle.js";
import { color } from "./theme.js";

/** always: trusted and remembered · once: trusted for this run · no: run without the project settings. */
export type TrustAnswer = "always" | "once" | "no";

export interface TrustItem {
  /** ".orca/config.yaml" */
  name: string;
  /** What it would do: commands it starts, permissions it grants. */
  details: readonly string[];
}

export interface TrustPromptProps {
  workspace: string;
  settings: readonly TrustItem[];
  /**
   * Called once: the answer, or null when the user quits (Esc, Ctrl+C); `typedAfter`, what came in
   * the same read after the answering key (typed on), for the dashboard.
   */
  onDone: (answer: TrustAnswer | null, typedAfter: string) => void;
  /** The user's home, shortened to ~ in the folder's path. */
  home?: string;
}

/** What one key means: an answer, null to quit, undefined for a key the prompt ignores. */
export function trustKey(key: KeyPress): TrustAnswer | null | undefined {
  if (key.name === "escape") return null;
  if (key.name === "ctrl") return key.text === "c" ? null : undefined;
  if (key.name !== "text" || key.meta) return undefined;
  // Enter is not an answer: a stray Enter must never trust a folder.
  switch (key.text.toLowerCase()) {
    case "y":
      return "always";
    case "o":
      return "once";
    case "n":
      return "no";
    default:
      return undefined;
  }
}

interface Row {
  text: string;
  kind: "name" | "detail" | "more";
}

/** The settings as rows, cut to `max` with a last row saying how many were left out. */
export function settingRows(settings: readonly TrustItem[], max: number): Row[] {
  const rows: Row[] = settings.flatMap((s) => [
    { text: `• ${displayLine(s.name)}`, kind: "name" as const },
    ...s.details.map((d) => ({ text: `    ${displayLine(d)}`, kind: "detail" as const })),
  ]);
  if (rows.length <= max) return rows;
  const kept = rows.slice(0, Math.max(0, max - 1));
  return [...kept, { text: `  … ${rows.length - kept.length} more lines`, kind: "more" }];
}


function shortPath(p: string, home: string | undefined): string {
  return home && (p === home || p.startsWith(`${home}/`)) ? `~${p.slice(home.length)}` : p;
}

/** Rows of the frame that are not the settings list: title, borders, folder, text, choices, hints. */
const CHROME_ROWS = 16;

/**
 * The first run in a folder that ships its own settings: what they are and what they would do,
 * and whether to load them. y trusts the folder for good, o for this run, n runs without them;
 * Esc or Ctrl+C quits. The dashboard's style, like the session picker.
 */
export function TrustPrompt({ workspace, settings, onDone, home }: TrustPromptProps): React.JSX.Element {
  const size = useTerminalSize();
  const done = useRef(false);
  // Less than the terminal's height: a full-height frame makes Ink clear the screen on every render.
  const height = Math.max(12, size.rows - 1);
  const width = Math.max(40, size.columns);
  const rows = settingRows(settings, Math.max(2, height - CHROME_ROWS));

  const pasting = useRef(false);
  const finish = (answer: TrustAnswer | null, typedAfter = ""): void => {
    done.current = true;
    onDone(answer, typedAfter);
  };

  // One read's presses together (readsOf): a "y" parsed apart from an escape sequence in the same read
  // is no more a key pressed on its own than the "y" of "hey".
  const onRead = useRef<(presses: KeyPress[]) => void>(() => undefined);
  onRead.current = (presses) => {
    const alone = presses.length === 1;
    for (const key of presses) {
      if (done.current) return;
      if (key.name === "paste_start" || key.name === "paste_end") pasting.current = key.name === "paste_start";
      // A paste never answers: it is no key the user pressed.
      if (pasting.current || key.name === "paste_end") continue;
      if (key.name !== "text") {
        const answer = trustKey(key);
        if (answer !== undefined) finish(answer);
        continue;
      }
      // Text is what one read held: keys typed one after another (Ink splits a read only at ESC). The
      // first that refuses or quits does; what was typed after it is the dashboard's.
      let at = 0;
      for (const char of key.text) {
        at += char.length;
        const answer = trustKey(pressOf(char, key.meta));
        if (answer === undefined) continue;
        // Trust comes only from a key pressed on its own: "hey" typed fast, or a paste from a terminal
        // without bracketed paste, must never trust a folder. Refusing or quitting may come from anywhere.
        if ((answer === "always" || answer === "once") && (!alone || key.text !== char)) continue;
        return finish(answer, key.text.slice(at));
      }
    }
  };
  const [onInput] = useState(() => readsOf((presses) => onRead.current(presses)));
  useInput(onInput);

  return (
    <Box flexDirection="column" width={width} height={height} overflowY="hidden">
      <ScreenTitle title="do you trust the files in this folder?" />
      <Box flexDirection="column" borderStyle="round" borderColor={color("warn")} paddingX={1} flexShrink={0}>
        <Text wrap="truncate-end" bold>
          {displayLine(shortPath(workspace, home))}
        </Text>
        <Text> </Text>
        <Text wrap="wrap">This folder has its own orca settings. They can run commands and grant permissions without asking you:</Text>
        {rows.map((row, i) => (
          <Text key={i} wrap="truncate-end" color={color(row.kind === "name" ? "warn" : "muted")} bold={row.kind === "name"}>
            {row.text}
          </Text>
        ))}
        <Text> </Text>
        <Text wrap="wrap">Load them only if you trust where this folder came from.</Text>
        <Text> </Text>
        <Text wrap="truncate-end">
          <Text bold color={color("accent")}>
            y
          </Text>{" "}
          trust this folder <Text color={color("muted")}>(remembered; covers its sub-folders)</Text>
        </Text>
        <Text wrap="truncate-end">
          <Text bold color={color("accent")}>
            o
          </Text>{" "}
          trust it for this session only
        </Text>
        <Text wrap="truncate-end">
          <Text bold color={color("accent")}>
            n
          </Text>{" "}
          run without the project settings
        </Text>
      </Box>
      <Box height={1}>
        <Text wrap="truncate-end" color={color("muted")}>
          y trust · o this session only · n ignore them · Esc quit
        </Text>
      </Box>
    </Box>
  );
}
