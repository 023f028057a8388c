import { add, subtract } from "./math.js";

/** Renders an operation as text, e.g. "2 + 3 = 5". */
export function format(op, a, b) {
  const result = op === "+" ? add(a, b) : subtract(a, b);
  return `${a} ${op} ${b} = ${result}`;
}
