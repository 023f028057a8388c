import { Box, Text } from "ink";
import type React from "react";
import type { SLASH_COMMANDS } from "./slash.js";
import { color } from "./theme.js";

/** The /commands matching what is typed, above the input box; ↑/↓ move, Tab completes, Enter runs. */
export function CommandPopup({ items, index, height }: { items: readonly (typeof SLASH_COMMANDS)[number][]; index: number; height: number }): React.JSX.Element | null {
  if (height <= 0 || items.length === 0) return null;
  const start = Math.min(Math.max(0, index - height + 1), Math.max(0, items.length - height));
  return (
    <Box flexDirection="column" height={height}>
      {items.slice(start, start + height).map((c, i) => (
        <Text key={c.name} wrap="truncate-end" inverse={start + i === index}>
          <Text color={color("accent")}>{`  /${c.name}`}</Text>
          {c.args ? <Text color={color("muted")}> {c.args}</Text> : null}
          <Text color={color("muted")}> — {c.help}</Text>
        </Text>
      ))}
    </Box>
  );
}
