import { Box, Text } from "ink";
import type React from "react";
import { displayLine } from "./format.js";
import type { PopupItem } from "./slash.js";
import { color } from "./theme.js";

/**
 * The /commands (or @paths) matching what is typed, above the input box; ↑/↓ move, Tab completes, Enter runs.
 * Every entry may come from a repository (a file name, a custom command's front matter): shown inert.
 */
export function CommandPopup({ items, index, height }: { items: readonly PopupItem[]; index: number; height: number }): React.JSX.Element | null {
  if (height <= 0 || items.length === 0) return null;
  const start = Math.min(Math.max(0, index - height + 1), Math.max(0, items.length - height));
  return (
    <Box flexDirection="column" height={height}>
      {items.slice(start, start + height).map((c, i) => (
        <Text key={c.label} wrap="truncate-end" inverse={start + i === index}>
          <Text color={color("accent")}>{`  ${displayLine(c.label)}`}</Text>
          {c.args ? <Text color={color("muted")}> {displayLine(c.args)}</Text> : null}
          {c.help ? <Text color={color("muted")}> — {displayLine(c.help)}</Text> : null}
        </Text>
      ))}
    </Box>
  );
}
