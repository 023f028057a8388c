import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { it } from "vitest";
import { Workspace } from "../../src/tools/workspace.js";
import { openSandbox } from "../../tests/fixtures/sandbox.js";
it("x", async () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sbx-")));
  execFileSync("git", ["init", "-q", dir]);
  const sb = await openSandbox({ workspace: new Workspace(dir) });
  const w = await sb.wrap(`echo pwned > .git/hooks/pre-commit && echo WROTE; ls -la .git/hooks | head -3`, "workspace-write");
  console.log(w.args.join(" "));
  console.log(execFileSync(w.file, w.args, { cwd: dir, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"] }));
  await sb.close();
});
