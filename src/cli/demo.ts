import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createDemoScript, DEMO_CONFIG, DEMO_PROMPT } from "../model/demo-script.js";
import { startScriptedServer } from "../model/scripted.js";
import { runInteractive } from "./interactive.js";
import type { CliArgs, MainIo } from "./types.js";

/**
 * `orca --demo`: the real dashboard and runtime on a scripted model served on loopback — the same
 * OpenAI wire path a real endpoint uses — over a temporary copy of the shipped sample project.
 */
export async function runDemo(args: CliArgs, io: MainIo, packageDir: string, version: string): Promise<number> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "orca-demo-"));
  const workspace = path.join(base, "tiny-calc");
  fs.cpSync(path.join(packageDir, "demo", "sample-project"), workspace, { recursive: true });
  const configFile = path.join(base, "config.yaml");
  fs.writeFileSync(configFile, DEMO_CONFIG);
  const server = await startScriptedServer(createDemoScript());
  try {
    return await runInteractive({ ...args, model: args.model ?? "orca-demo" }, io, packageDir, version, {
      baseUrl: server.url,
      configFile,
      workspace,
      // The demo never uses a real key, even when one is set.
      env: { ...io.env, OPENAI_API_KEY: "orca-demo-key", OPENAI_BASE_URL: undefined, ORCA_MODEL: undefined },
      demo: true,
      initialPrompt: args.prompt ?? DEMO_PROMPT,
    });
  } finally {
    await server.close();
    fs.rmSync(base, { recursive: true, force: true });
  }
}
