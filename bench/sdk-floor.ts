/**
 * The floor under bench/overhead.ts: the least any Node program that drives a model through the
 * openai SDK must do, on the same Node, the same scripted server and the same arguments as orca
 * (`-p PROMPT --base-url URL`). It streams each answer, reads the file each `read_file` call
 * names and sends it back, and exits when an answer has no tool call — no config, no session log,
 * no permissions, no sandbox, no scheduler. The bench bundles it as orca's bundle is built
 * (scripts/bundle-options.mjs), so both load their code the same way.
 */
import fs from "node:fs";
import { parseArgs } from "node:util";
import v8 from "node:v8";
import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";

// orca's one flag that changes the floor: without it exit waits ~90 ms for V8 to finish optimising
// undici's WebAssembly HTTP parser (bin/v8-flags.js).
v8.setFlagsFromString("--liftoff-only");
const { values } = parseArgs({ options: { p: { type: "string" }, "base-url": { type: "string" } }, strict: false });
const client = new OpenAI({ baseURL: String(values["base-url"]), apiKey: process.env.OPENAI_API_KEY });
const tools: ChatCompletionTool[] = [
  { type: "function", function: { name: "read_file", description: "Reads a file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } },
];
const messages: ChatCompletionMessageParam[] = [{ role: "user", content: String(values.p) }];

for (;;) {
  const stream = await client.chat.completions.create({ model: "floor", messages, tools, stream: true });
  let text = "";
  const calls: Array<{ id: string; name: string; args: string }> = [];
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta;
    if (delta?.content) text += delta.content;
    for (const call of delta?.tool_calls ?? []) {
      const slot = (calls[call.index] ??= { id: "", name: "", args: "" });
      if (call.id) slot.id = call.id;
      if (call.function?.name) slot.name += call.function.name;
      if (call.function?.arguments) slot.args += call.function.arguments;
    }
  }
  if (calls.length === 0) {
    process.stdout.write(`${text}\n`);
    break;
  }
  messages.push({ role: "assistant", content: text || null, tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.args } })) });
  for (const call of calls) {
    const { path } = JSON.parse(call.args) as { path: string };
    messages.push({ role: "tool", tool_call_id: call.id, content: fs.readFileSync(path, "utf8") });
  }
}
// As orca's bin does: the keep-alive socket must not hold the finished process.
process.exit(0);
