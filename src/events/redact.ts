/**
 * Replaces secret values (API keys, header values, MCP tokens) with [redacted] in serialised
 * events, wherever they went: the session log and the stream-json output both pass through it.
 */
export class Redactor {
  private readonly secrets: string[] = [];

  /** Short values would redact ordinary words; real keys and tokens are long. */
  add(value: string | undefined): void {
    if (value && value.length >= 8 && !this.secrets.includes(value)) this.secrets.push(value);
  }

  /** Redacts a JSON-serialised line (a secret may appear JSON-escaped there). */
  redactJson(line: string): string {
    for (const secret of this.secrets) {
      if (line.includes(secret)) line = line.split(secret).join("[redacted]");
      const escaped = JSON.stringify(secret).slice(1, -1);
      if (escaped !== secret && line.includes(escaped)) line = line.split(escaped).join("[redacted]");
    }
    return line;
  }
}
