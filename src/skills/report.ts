import type { SkillReport } from "./loader.js";

/**
 * The text of `orca skills`: where orca looked, what it found and where from, what it skipped and
 * why, and which definitions are shadowed. The CLI prints it; the core only builds it.
 */
export function formatSkillReport(report: SkillReport, roots: string[]): string {
  const lines: string[] = ["Searched, in order:", ...roots.map((r) => `  ${r}`), ""];
  if (report.skills.length === 0) {
    lines.push("No skills found.");
  } else {
    lines.push(`Skills (${report.skills.length}):`);
    for (const s of report.skills) {
      const description = s.description.replace(/\s+/g, " ");
      lines.push(`  ${s.name}  [${s.source}]  ${s.file}`);
      lines.push(`    ${description.length > 160 ? `${description.slice(0, 159)}…` : description}`);
      if (s.allowedTools.length) lines.push(`    allowed-tools: ${s.allowedTools.join(", ")}`);
    }
  }
  if (report.skipped.length) {
    lines.push("", `Skipped (${report.skipped.length}):`);
    for (const s of report.skipped) lines.push(`  ${s.path}: ${s.reason}`);
  }
  if (report.duplicates.length) {
    lines.push("", `Shadowed (${report.duplicates.length}; the first in search order wins):`);
    for (const d of report.duplicates) lines.push(`  ${d.name}: ${d.path} (using ${d.keptPath})`);
  }
  return `${lines.join("\n")}\n`;
}
