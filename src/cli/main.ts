import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError, exitCodeOfError } from "../util/errors.js";
import { dataDir, loadConfig } from "../config/load.js";
import { trustStoreFor } from "../config/trust.js";
import { planResume, type ResumePlan } from "../sessions/resume-plan.js";
import { listedSessions, listSessions } from "../sessions/store.js";
import { createSession, type SessionSetup } from "../orchestrator/create.js";
import { HeadlessApprover } from "../tools/headless-approver.js";
import { dismissEarlyFrame } from "../ui/early-frame-slot.js";
import { HELP, parseCli } from "./args.js";
import { commandUsage, UsageError } from "./usage.js";
import type { CliArgs, MainIo } from "./types.js";
import { runHeadless } from "./headless.js";
import { runListCommand } from "./list-commands.js";
import { peopleIo, terminalSafeStream } from "./terminal-out.js";

export const PACKAGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export function packageVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(PACKAGE_DIR, "package.json"), "utf8")) as { version: string };
  return pkg.version;
}

const defaultIo = (): MainIo => ({ stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env });

/** Runs orca; returns the exit code. Errors the user can fix are one line on stderr. */
export async function main(argv: string[], raw: MainIo = defaultIo()): Promise<number> {
  // Whatever orca prints but the dashboard is text for people, some of it from a model, a server
  // or a log: it reaches a terminal terminal-safe. The dashboard's stdout is its own.
  const io: MainIo = { ...raw, stderr: terminalSafeStream(raw.stderr) };
  const people = peopleIo(raw);
  let args: CliArgs;
  try {
    args = parseCli(argv);
  } catch (error) {
    return reportError(error, io);
  }
  if (args.help) {
    io.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (args.version) {
    io.stdout.write(`orca ${packageVersion()}\n`);
    return 0;
  }
  let started: SessionSetup | null = null;
  const killOnExit = () => started?.killChildrenSync();
  process.on("exit", killOnExit);
  try {
    if (args.subcommand === "doctor") return await (await import("./doctor.js")).runDoctor(args, people, PACKAGE_DIR, packageVersion());
    if (args.subcommand === "permissions") return await (await import("./permissions-command.js")).permissionsCommand(args, people, PACKAGE_DIR);
    if (args.subcommand === "undo") return await (await import("./undo-command.js")).undoCommand(args, people, PACKAGE_DIR);
    if (args.subcommand) return await runListCommand(args, people, PACKAGE_DIR);
    if (args.demo) {
      const { runDemo } = await import("./demo.js");
      return await runDemo(args, io, PACKAGE_DIR, packageVersion());
    }
    if (args.print || !io.stdin.isTTY || !io.stdout.isTTY) {
      const resume = args.resume !== undefined || args.continue ? resumePlan(args, io) : undefined;
      const prompt = args.prompt ?? (args.print && !io.stdin.isTTY ? (await readStdin(io.stdin)).trim() : undefined);
      if (!prompt) throw new UsageError("no prompt: give one as an argument (orca -p \"…\") or on standard input", commandUsage());
      started = await createSession({
        workspace: resume?.workspace ?? args.workspace,
        configFile: args.configFile,
        overrides: { model: args.model, baseUrl: args.baseUrl, maxSteps: args.maxSteps, maxCostUsd: args.maxCostUsd, permissionMode: args.permissionMode },
        env: io.env,
        packageDir: PACKAGE_DIR,
        approver: new HeadlessApprover(args.yes),
        agentName: args.agent,
        version: packageVersion(),
        resume,
        continueTeam: !args.noContinue,
      });
      return await runHeadless(started, prompt, args.outputFormat, { stdout: terminalSafeStream(raw.stdout, "tty"), stderr: io.stderr });
    }
    // The dashboard reads an untrusted folder's own config not even to find its sessions.
    const project = () => trustStoreFor({ workspace: args.workspace, configFile: args.configFile, env: io.env, packageDir: PACKAGE_DIR }).isTrusted(args.workspace);
    const resume =
      args.resume === true ? await pickedPlan(args, io, project()) : args.resume !== undefined || args.continue ? resumePlan(args, io, project()) : undefined;
    // The user left the picker without choosing: nothing to do, nothing started.
    if (resume === null) return 0;
    const { runInteractive } = await import("./interactive.js");
    return await runInteractive(args, io, PACKAGE_DIR, packageVersion(), { resume });
  } catch (error) {
    return reportError(error, io);
  } finally {
    process.off("exit", killOnExit);
    started?.killChildrenSync();
    dismissEarlyFrame();
  }
}

/** The session `--resume [ID]` or `--continue` names; says which one when orca picked it. */
function resumePlan(args: CliArgs, io: MainIo, project = true): ResumePlan {
  const { config } = loadConfig({ workspace: args.workspace, configFile: args.configFile, env: io.env, packageDir: PACKAGE_DIR, project });
  const plan = planResume({ dataDir: dataDir(config), resume: args.resume, continue: args.continue, workspace: args.workspace });
  if (plan.picked) io.stderr.write(`orca: resuming session ${plan.sessionId} (${plan.workspace})\n`);
  return plan;
}

/** `--resume` without an id in a terminal: the user picks the session from a list. Null: they quit. */
async function pickedPlan(args: CliArgs, io: MainIo, project: boolean): Promise<ResumePlan | null> {
  const { config } = loadConfig({ workspace: args.workspace, configFile: args.configFile, env: io.env, packageDir: PACKAGE_DIR, project });
  const dir = dataDir(config);
  const every = listSessions(dir);
  const sessions = listedSessions(every);
  if (sessions.length === 0) {
    const others = listedSessions(every, { all: true }).length;
    throw new ConfigError(others ? "no sessions yet that got an answer (orca sessions --all lists the others)" : "no sessions yet");
  }
  const { pickSession } = await import("../ui/pick.js");
  const id = await pickSession({ sessions, stdin: io.stdin, stdout: io.stdout, home: io.env.HOME, handOver: true });
  if (id === null) return null;
  // The dashboard's terminal from here, as after the trust prompt: keys typed while the session starts wait for it.
  const { paintEarlyFrame } = await import("../ui/early-frame.js");
  paintEarlyFrame({ stdin: io.stdin, stdout: io.stdout, demo: false, model: args.model, handOver: true });
  return planResume({ dataDir: dir, resume: id, workspace: args.workspace });
}

function reportError(error: unknown, io: MainIo): number {
  // A first frame drawn for a dashboard that will not come goes first: the message is for the normal screen.
  dismissEarlyFrame();
  if (error instanceof ConfigError) {
    // A config error may list several problems, one line each; a usage error adds its usage.
    const lines = error.message.split("\n").map((line) => `orca: ${line}`);
    if (error instanceof UsageError) lines.push(...error.usage);
    io.stderr.write(`${lines.join("\n")}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
  io.stderr.write(`orca: ${message}\n`);
  return exitCodeOfError(error);
}

function readStdin(stdin: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    stdin.on("data", (chunk: Buffer) => parts.push(chunk));
    stdin.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    stdin.on("error", reject);
  });
}
