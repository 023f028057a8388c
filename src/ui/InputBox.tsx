import { Box, Text } from "ink";
import type React from "react";
import { memo } from "react";
import wrapAnsi from "wrap-ansi";
import type { EditorState } from "./state/editor.js";
import { color } from "./theme.js";

export interface InputBoxProps {
  editor: EditorState;
  width: number;
  height: number;
  /** Shown dim when the box is empty. */
  placeholder: string;
  active: boolean;
  /** Who Enter sends to, when it is not the coordinator (a focused running sub-agent): shown before the prompt. */
  to?: string;
}

interface Line {
  text: string;
  /** Cursor column on this line, if the cursor is here. */
  cursor?: number;
}

/** Splits the text into display lines no wider than `width`, marking where the cursor is. */
export function layoutInput(text: string, cursor: number, width: number): Line[] {
  const lines: Line[] = [];
  let offset = 0;
  for (const logical of text.split("\n")) {
    const pieces = logical === "" ? [""] : wrapAnsi(logical, width, { hard: true, trim: false, wordWrap: false }).split("\n");
    let at = offset;
    pieces.forEach((piece, i) => {
      const end = at + piece.length;
      const last = i === pieces.length - 1;
      const here = cursor >= at && (cursor < end || (last && cursor === end));
      lines.push(here ? { text: piece, cursor: cursor - at } : { text: piece });
      at = end;
    });
    offset += logical.length + 1;
  }
  return lines;
}

/**
 * The multi-line prompt editor. Text keys reach it through the input key layer in App. Its props
 * hold still while agents stream (the editor state changes only as you type): redraws skip it.
 */
export const InputBox = memo(function InputBox({ editor, width, height, placeholder, active, to }: InputBoxProps): React.JSX.Element {
  const prompt = promptOf(to);
  const inner = textWidth(width, to);
  const visible = Math.max(1, height - 2);
  const lines = layoutInput(editor.text, editor.cursor, inner);
  const at = Math.max(0, lines.findIndex((l) => l.cursor !== undefined));
  const start = Math.min(Math.max(0, at - visible + 1), Math.max(0, lines.length - visible));
  const shown = lines.slice(start, start + visible);
  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor={color(active ? "text" : "border")} overflowY="hidden">
      {editor.text === "" ? (
        <Text wrap="truncate-end">
          <Text color={color("accent")}>{prompt}</Text>
          {active ? <Text inverse> </Text> : null}
          <Text color={color("muted")}>{placeholder}</Text>
        </Text>
      ) : (
        shown.map((line, i) => (
          <Text key={start + i} wrap="truncate-end">
            <Text color={color("accent")}>{start + i === 0 ? prompt : " ".repeat(prompt.length)}</Text>
            {line.cursor === undefined || !active ? (
              line.text
            ) : (
              <>
                {line.text.slice(0, line.cursor)}
                <Text inverse>{line.text.slice(line.cursor, line.cursor + 1) || " "}</Text>
                {line.text.slice(line.cursor + 1)}
              </>
            )}
          </Text>
        ))
      )}
    </Box>
  );
});

function promptOf(to: string | undefined): string {
  return to ? `${to} › ` : "› ";
}

/** Columns left for the text: the box's borders and the prompt take the rest. */
function textWidth(width: number, to: string | undefined): number {
  return Math.max(1, width - 2 - promptOf(to).length);
}

/** How many display lines the text needs (the layout grows the box up to a limit). */
export function inputLineCount(text: string, width: number, to?: string): number {
  return layoutInput(text, 0, textWidth(width, to)).length;
}
