import type { Node } from "web-tree-sitter";
import { parseTree } from "./parser.js";
import { wordOf, type ShellWord } from "./words.js";
import { unwrap, type Invocation } from "./wrappers.js";

/**
 * A bash command line read the way bash reads it: every simple command in it — in pipelines,
 * lists, `{ …; }`, subshells, if/while/for/case bodies, functions, `$( )` and backticks, heredocs,
 * and the code of `sh -c '…'` / `eval '…'` — with its words unquoted and unescaped, and what it
 * runs through wrappers (`sudo`, `env`, `nice`, `xargs`, `find -exec`…). Where bash could do
 * something the text does not show (a command name in a variable, `source`, a script read from
 * input, arithmetic on variables, syntax this reading cannot follow), `uncertain` says why.
 */

export interface Redirect {
  /** `>`, `>>`, `&>`, `>|`, `<`, `<>`, `>&`, `<&`, `<<`, `<<<`… */
  op: string;
  /** The file (or fd for `>&`) it names; null for a heredoc. */
  target: ShellWord | null;
}

export interface SimpleCommand {
  /** The command name first. */
  words: ShellWord[];
  /** `VAR=value` prefixes, as written. */
  assignments: string[];
  redirects: Redirect[];
  /** What it runs: itself first, then what each wrapper runs. */
  runs: Invocation[];
}

export interface ShellAnalysis {
  /** Every simple command, the code of `sh -c` and substitutions included. */
  commands: SimpleCommand[];
  /** Why bash might run something this reading cannot see; empty when it is certain. */
  uncertain: string[];
  /**
   * Only simple commands joined by `;`, `&&`, `||`, `|`, `&` and newlines (optionally negated or
   * redirected): no loops, groups, functions, substitutions, standalone assignments or nested
   * shell code. Only such a line can be vouched for command by command.
   */
  plain: boolean;
}

const MAX_DEPTH = 4;

/** Statement nodes of tree-sitter-bash that hold other statements but are not plain. */
const STATEMENTS = new Set([
  "command",
  "pipeline",
  "list",
  "negated_command",
  "redirected_statement",
  "subshell",
  "compound_statement",
  "if_statement",
  "while_statement",
  "for_statement",
  "c_style_for_statement",
  "case_statement",
  "function_definition",
  "declaration_command",
  "unset_command",
  "test_command",
  "variable_assignment",
  "variable_assignments",
  "elif_clause",
  "else_clause",
  "do_group",
  "case_item",
]);

export function analyseShell(text: string, depth = 0): ShellAnalysis {
  const out: ShellAnalysis = { commands: [], uncertain: [], plain: true };
  // bash joins `\` + newline before it reads words; this reading would not.
  if (/\\\r?\n/.test(text)) out.uncertain.push("a line continued with a backslash");
  const tree = parseTree(text);
  if (!tree) {
    out.uncertain.push("the shell parser is not loaded");
    out.plain = false;
    return out;
  }
  try {
    const root = tree.rootNode;
    if (root.hasError) {
      out.uncertain.push("syntax this reading cannot follow");
      out.plain = false;
    }
    new Walker(out, depth).statement(root, true);
  } finally {
    tree.delete();
  }
  out.uncertain = [...new Set(out.uncertain)];
  return out;
}

class Walker {
  constructor(
    private readonly out: ShellAnalysis,
    private readonly depth: number,
  ) {}

  /** A statement; `plain` while it is still part of the line's own list of simple commands. */
  statement(node: Node, plain: boolean): void {
    switch (node.type) {
      case "program":
      case "list":
      case "pipeline":
      case "negated_command":
        for (const child of named(node)) this.statement(child, plain);
        return;
      case "comment":
        return;
      case "command":
        this.command(node, []);
        return;
      case "redirected_statement": {
        const body = node.childForFieldName("body");
        const redirects: Redirect[] = [];
        for (const child of named(node)) if (child.id !== body?.id) redirects.push(...this.redirect(child, plain));
        if (body?.type === "command") this.command(body, redirects);
        else if (body) this.statement(body, false);
        if (body?.type !== "command") this.out.plain = false;
        return;
      }
    }
    this.out.plain = false;
    if (node.type === "compound_statement" && node.child(0)?.type === "((") this.arithmetic(node);
    if (node.type === "c_style_for_statement") this.arithmetic(node);
    if (node.type === "test_command" && node.child(0)?.type === "[[") {
      for (const op of node.descendantsOfType("test_operator")) {
        if (op && /^-(eq|ne|lt|le|gt|ge)$/.test(op.text)) this.arithmetic(node);
      }
    }
    if (node.type === "declaration_command" || node.type === "unset_command") this.builtinStatement(node);
    for (const child of named(node)) {
      if (STATEMENTS.has(child.type)) this.statement(child, false);
      else this.scan(child);
    }
  }

  /** `export`, `declare`, `local`, `readonly`, `typeset`, `unset`: a builtin run with its words. */
  private builtinStatement(node: Node): void {
    const keyword = node.child(0)?.text ?? node.type;
    const words: ShellWord[] = [{ value: keyword, text: keyword, quoted: false }];
    for (const child of named(node)) words.push(wordOf(child));
    this.out.commands.push({ words, assignments: [], redirects: [], runs: [{ argv: words.map((w) => w.value) }] });
  }

  private command(node: Node, extra: Redirect[]): void {
    const words: ShellWord[] = [];
    const assignments: string[] = [];
    const redirects: Redirect[] = [];
    const redirectIds = new Set(node.childrenForFieldName("redirect").map((r) => r?.id));
    for (const child of named(node)) {
      if (redirectIds.has(child.id)) {
        redirects.push(...this.redirect(child, true));
        continue;
      }
      if (child.type === "variable_assignment") {
        assignments.push(child.text);
        this.scan(child);
        continue;
      }
      if (STATEMENTS.has(child.type) || child.type === "subshell") {
        // `time (rm x)`: a statement where a word would be.
        this.out.plain = false;
        this.statement(child, false);
        continue;
      }
      words.push(wordOf(child));
      this.scan(child);
    }
    redirects.push(...extra);
    const unwrapped = unwrap(words.map((w) => w.value));
    this.out.commands.push({ words, assignments, redirects, runs: unwrapped.runs });
    this.out.uncertain.push(...unwrapped.uncertain);
    for (const script of unwrapped.scripts) this.nested(script);
  }

  /** Shell code a command runs (`sh -c`, `eval`): read the same way, one level down. */
  private nested(script: string): void {
    this.out.plain = false;
    if (this.depth + 1 > MAX_DEPTH) {
      this.out.uncertain.push("shell code nested too deep");
      return;
    }
    const inner = analyseShell(script, this.depth + 1);
    this.out.commands.push(...inner.commands);
    this.out.uncertain.push(...inner.uncertain);
  }

  private redirect(node: Node, plain: boolean): Redirect[] {
    switch (node.type) {
      case "file_redirect": {
        const op = node.children.find((c) => c && !c.isNamed && c.type !== "file_descriptor")?.text ?? ">";
        const dest = node.childForFieldName("destination");
        if (dest) this.scan(dest);
        return [{ op, target: dest ? wordOf(dest) : null }];
      }
      case "herestring_redirect": {
        const value = named(node)[0];
        if (value) this.scan(value);
        return [{ op: "<<<", target: value ? wordOf(value) : null }];
      }
      case "heredoc_redirect": {
        // `cat <<EOF | grep x`: the rest of the pipeline sits inside the heredoc node.
        for (const child of named(node)) {
          if (STATEMENTS.has(child.type)) this.statement(child, plain);
          else if (child.type === "heredoc_body") this.scan(child);
          else if (child.type === "file_redirect" || child.type === "herestring_redirect") this.redirect(child, plain);
        }
        return [{ op: "<<", target: null }];
      }
      default:
        this.scan(node);
        return [];
    }
  }

  /** Words and expressions: the statements inside substitutions, and arithmetic on variables. */
  scan(node: Node): void {
    switch (node.type) {
      case "command_substitution":
      case "process_substitution":
        this.out.plain = false;
        for (const child of named(node)) {
          if (STATEMENTS.has(child.type)) this.statement(child, false);
          else this.scan(child);
        }
        return;
      case "arithmetic_expansion":
        this.arithmetic(node);
        break;
      case "subscript": {
        const index = node.childForFieldName("index");
        if (index && !/^(\d+|@|\*)$/.test(index.text)) this.out.uncertain.push("arithmetic on variables can run code");
        break;
      }
      case "expansion":
        // `${x:$off}`: substring offsets are arithmetic too.
        if (/^\$\{[^}]*?:[^-=?+]/.test(node.text) && hasVariable(node, true)) this.out.uncertain.push("arithmetic on variables can run code");
        break;
    }
    for (const child of named(node)) {
      if (STATEMENTS.has(child.type)) {
        this.out.plain = false;
        this.statement(child, false);
      } else this.scan(child);
    }
  }

  /** bash evaluates a variable's value as an expression, and `a[$(cmd)]` in it runs cmd. */
  private arithmetic(node: Node): void {
    if (hasVariable(node, false)) this.out.uncertain.push("arithmetic on variables can run code");
  }
}

function named(node: Node): Node[] {
  return node.namedChildren.filter((c): c is Node => c !== null);
}

function hasVariable(node: Node, nestedOnly: boolean): boolean {
  const found = node.descendantsOfType(["variable_name", "simple_expansion", "expansion", "word"]);
  // In `${x:…}` the expansion's own name is a variable_name too.
  return found.filter((n) => n && !(nestedOnly && n.parent?.id === node.id && n.type === "variable_name")).length > 0;
}
