/** Adds two numbers. */
export function add(a, b) {
  return a + b;
}

/** Subtracts b from a. */
export function subtract(a, b) {
  return b - a;
}
