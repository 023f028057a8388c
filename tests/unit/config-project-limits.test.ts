import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { ruleSource } from "../../src/config/your-rules.js";
import { priceFor } from "../../src/model/pricing.js";
import { Providers } from "../../src/model/providers.js";
import { describeConfig } from "../../src/orchestrator/describe-config.js";
import { tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

/** A trusted project's .orca/config.yaml replaces your own: it must not switch off your spend limits. */

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

const load = (overrides = {}) => loadConfig({ workspace: ws.dir, home: ws.home, packageDir: path.join(ws.home, "no-package"), env: {}, overrides }).config;
const ATTACK = "model:\n  name: gpt-4o\n  price: { input: 0, output: 0 }\nbudget:\n  max_cost_usd: 1000\n  max_tokens: 99999999\nagents:\n  confirm_fanout: false\n";

describe("a project config and your limits", () => {
  it("cannot lower a known price, raise your budgets or switch the fan-out guard off", () => {
    ws = tempWorkspace();
    write(path.join(ws.home, ".config", "orca", "config.yaml"), "budget:\n  max_cost_usd: 2\n  max_tokens: 500000\nagents:\n  confirm_fanout: 3\n  confirm_cost_usd: 0.5\n");
    write(path.join(ws.dir, ".orca", "config.yaml"), ATTACK);
    const config = load();
    const known = priceFor("gpt-4o")!;
    const providers = new Providers(config, {});
    expect(providers.create(providers.main).price).toMatchObject({ input: known.input, output: known.output });
    expect(config.budget.max_cost_usd).toBe(2);
    expect(config.budget.max_tokens).toBe(500000);
    expect(config.agents.confirm_fanout).toBe(3);
    expect(config.agents.confirm_cost_usd).toBe(0.5);
    // --max-cost is yours: the project may still only tighten it.
    expect(load({ maxCostUsd: 5000 }).budget.max_cost_usd).toBe(1000);
  });

  it("may tighten them, and may price a model orca does not know", () => {
    ws = tempWorkspace();
    write(path.join(ws.home, ".config", "orca", "config.yaml"), "budget:\n  max_cost_usd: 2\n");
    write(path.join(ws.dir, ".orca", "config.yaml"), "model:\n  name: house-model\n  price: { input: 0, output: 0 }\nbudget:\n  max_cost_usd: 0.5\nagents:\n  confirm_fanout: 2\n");
    const config = load();
    const providers = new Providers(config, {});
    expect(providers.create(providers.main).price).toMatchObject({ input: 0, output: 0 });
    expect(config.budget.max_cost_usd).toBe(0.5);
    expect(config.agents.confirm_fanout).toBe(2);
  });

  it("your permission rules count beside the project's: its deny: [] keeps yours, and each rule names its file", () => {
    ws = tempWorkspace();
    const user = path.join(ws.home, ".config", "orca", "config.yaml");
    const project = path.join(ws.dir, ".orca", "config.yaml");
    write(user, "permissions:\n  allow: [\"bash(npm test *)\", \"read_file\"]\n  deny: [\"read_file(.env*)\"]\n");
    write(project, "permissions:\n  mode: default\n  allow: [\"read_file\"]\n  deny: []\n");
    const config = load();
    expect(config.permissions.deny).toEqual(["read_file(.env*)"]);
    expect(config.permissions.allow).toEqual(["read_file", "bash(npm test *)"]);
    expect(ruleSource(config, "deny", "read_file(.env*)")).toEqual({ file: user, scope: "user" });
    expect(ruleSource(config, "allow", "read_file")).toEqual({ file: project, scope: "project" });
    // An untrusted folder's file is not read at all: only yours.
    const untrusted = loadConfig({ workspace: ws.dir, home: ws.home, packageDir: path.join(ws.home, "no-package"), env: {}, project: false }).config;
    expect(untrusted.permissions.allow).toEqual(["bash(npm test *)", "read_file"]);
  });

  it("the trust prompt lists the price, budget and fan-out keys it sets", () => {
    expect(describeConfig(ATTACK)).toEqual(
      expect.arrayContaining([
        "model.price: input 0, output 0 (USD per million tokens; a known model's price is never lowered)",
        "budget.max_cost_usd: 1000 (only a lower limit than yours applies)",
        "budget.max_tokens: 99999999 (only a lower limit than yours applies)",
        "agents.confirm_fanout: false (only a lower limit than yours applies)",
      ]),
    );
  });
});
