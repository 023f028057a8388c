/**
 * The probe's kept answer decides how commands are confined (probe-cache.ts): only a regular
 * file of the user's, writable by no one else, is believed — not a link to one elsewhere (a
 * workspace's file, which the model's tools can write), and not a FIFO or a huge file. Real bwrap.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { cachedProbeBwrap } from "../../src/tools/sandbox/probe-cache.js";

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

async function keptAnswer(): Promise<{ file: string; kept: { key: string; version: string; disableUserns: boolean } }> {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-probe-"));
  const file = path.join(dir, "cache", "probe.json");
  const first = await cachedProbeBwrap({ seccomp: false }, file);
  expect(first.ok, first.reason).toBe(true);
  return { file, kept: JSON.parse(fs.readFileSync(file, "utf8")) };
}

describe("the probe cache's file", () => {
  it("is not believed through a link: a linked answer with the right key probes again", async () => {
    const { file, kept } = await keptAnswer();
    const planted = path.join(dir, "workspace-file.json");
    fs.writeFileSync(planted, JSON.stringify({ ...kept, version: "FORGED", disableUserns: !kept.disableUserns }), { mode: 0o600 });
    fs.rmSync(file);
    fs.symlinkSync(planted, file);
    const again = await cachedProbeBwrap({ seccomp: false }, file);
    expect(again).toMatchObject({ ok: true, version: kept.version, disableUserns: kept.disableUserns });
    // The probe's answer replaced the link with the user's own file.
    expect(fs.lstatSync(file).isFile()).toBe(true);
  }, 60_000);

  it("a FIFO in its place does not hang the start, and a huge file is not parsed", async () => {
    const { file, kept } = await keptAnswer();
    fs.rmSync(file);
    execFileSync("mkfifo", ["-m", "600", file]);
    expect(await cachedProbeBwrap({ seccomp: false }, file)).toMatchObject({ ok: true, version: kept.version });
    fs.rmSync(file, { force: true });
    fs.writeFileSync(file, JSON.stringify({ ...kept, version: "FORGED", pad: "x".repeat(100_000) }), { mode: 0o600 });
    expect(await cachedProbeBwrap({ seccomp: false }, file)).toMatchObject({ ok: true, version: kept.version });
  }, 60_000);
});
