import { Box, Text } from "ink";
import type React from "react";
import { color } from "./theme.js";

/**
 * The title row of a full-screen question (the session picker, the trust prompt): "orca · what it
 * asks", then whatever detail the question adds, cut at the edge.
 */
export function ScreenTitle({ title, children }: { title: string; children?: React.ReactNode }): React.JSX.Element {
  return (
    <Box height={1}>
      <Text wrap="truncate-end">
        <Text bold color={color("accent")}>
          orca
        </Text>
        <Text color={color("muted")}> · </Text>
        <Text>{title}</Text>
        {children}
      </Text>
    </Box>
  );
}
