import type { ElementContent, Root } from "hast";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import ruby from "highlight.js/lib/languages/ruby";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { createLowlight } from "lowlight";
import { paint, type Role } from "./theme.js";

/**
 * Code blocks in the assistant's markdown, coloured by highlight.js grammars (through lowlight's
 * tree, so no HTML is parsed). Only the languages agents write most are registered: the bundle
 * stays small, and an unknown language is shown plain rather than guessed.
 */
let lowlight: ReturnType<typeof createLowlight> | undefined;

/**
 * The grammars, registered on first use rather than when the dashboard loads: building them took
 * ~10 ms before the dashboard's first frame, and most sessions show no code block that soon.
 */
function highlighter(): ReturnType<typeof createLowlight> {
  if (!lowlight) {
    lowlight = createLowlight({ bash, c, cpp, css, diff, go, java, javascript, json, markdown, python, ruby, rust, shell, sql, typescript, xml, yaml });
    lowlight.registerAlias({ javascript: ["js", "jsx", "mjs", "cjs"], typescript: ["ts", "tsx"], bash: ["sh", "zsh", "console"], python: ["py"], yaml: ["yml"], xml: ["html", "svg"], rust: ["rs"], ruby: ["rb"], markdown: ["md"] });
  }
  return lowlight;
}

const ROLES: Record<string, Role> = {
  keyword: "keyword",
  built_in: "type",
  type: "type",
  literal: "number",
  number: "number",
  string: "string",
  regexp: "string",
  comment: "comment",
  doctag: "comment",
  meta: "muted",
  title: "title",
  "title.function_": "title",
  "title.class_": "type",
  attr: "accent",
  attribute: "accent",
  property: "accent",
  variable: "text",
  params: "text",
  symbol: "number",
  selector: "keyword",
  "selector-tag": "keyword",
  tag: "keyword",
  name: "keyword",
  addition: "diffAdd",
  deletion: "diffDel",
  section: "heading",
};

function roleOf(classes: unknown, inherited: Role | null): Role | null {
  if (!Array.isArray(classes)) return inherited;
  for (const cls of classes as string[]) {
    const name = cls.replace(/^hljs-/, "");
    if (ROLES[name]) return ROLES[name]!;
  }
  return inherited;
}

/** The lines of `code`, coloured when `lang` is a registered language; ANSI never spans two lines. */
export function highlightLines(code: string, lang: string | undefined): string[] {
  const name = lang?.trim().split(/\s+/)[0]?.toLowerCase();
  if (!name || !highlighter().registered(name)) return code.split("\n");
  let tree: Root;
  try {
    tree = highlighter().highlight(name, code);
  } catch {
    return code.split("\n");
  }
  const lines: string[] = [""];
  const walk = (nodes: readonly ElementContent[], role: Role | null): void => {
    for (const node of nodes) {
      if (node.type === "text") {
        const parts = node.value.split("\n");
        parts.forEach((part, i) => {
          if (i > 0) lines.push("");
          lines[lines.length - 1] += role ? paint(role, part) : part;
        });
      } else if (node.type === "element") walk(node.children, roleOf(node.properties?.className, role));
    }
  };
  walk(tree.children as ElementContent[], null);
  return lines;
}
