/**
 * The programs that run another command, as data: how each one's options are read, and where the
 * command (or the shell code) it runs is. wrappers.ts reads a command line with it; a test unwraps
 * every entry with its example (tests/unit/shell-wrappers.test.ts).
 */

export interface OptionSpec {
  /** Short options without a value. */
  flags?: string;
  /** Short options that take a value (attached, or the next word). */
  withValue?: string;
  long?: readonly string[];
  longWithValue?: readonly string[];
  /** `nice -10`: a number as an option. */
  numeric?: boolean;
}

export interface WrapperSpec extends OptionSpec {
  /** `VAR=value` words may come before the command (sudo, env). */
  assignments?: boolean;
  /** Words after the options that are not the command: a lock file, a CPU mask, a priority. */
  positional?: number;
  openEnded?: boolean;
  /** Options that make it look a command up instead of running it (`command -v`). */
  lookup?: string;
  /** What it runs with no command given (xargs: echo). */
  defaultCommand?: string;
  /** Options whose value is shell code it runs: `flock -c`, `script -c`, `tar --to-command`, `tar -I`. */
  code?: { short?: string; long?: readonly string[] };
  /** Only its code options run anything: no other word of it is ever a command (script, tar). */
  codeOnly?: boolean;
  /** Given no command (nor code), it runs a shell that reads its input: what runs is unseen. */
  shellByDefault?: boolean;
  /** A command line with it that runs `rm f`: the test unwraps every entry with it. */
  example: string;
}

/**
 * Programs that run another command: the rest of their arguments after their own options, or
 * shell code given to an option. One table, so that each is read the same way and a test can
 * unwrap every entry (tests/unit/shell-wrappers.test.ts).
 */
export const WRAPPERS: Record<string, WrapperSpec> = {
  sudo: {
    flags: "AbEHiKklnPSsVv",
    withValue: "CDghpRrTtUu",
    long: ["--askpass", "--background", "--preserve-env", "--set-home", "--login", "--remove-timestamp", "--reset-timestamp", "--non-interactive", "--preserve-groups", "--stdin", "--shell"],
    longWithValue: ["--close-from", "--chdir", "--group", "--host", "--prompt", "--chroot", "--role", "--type", "--command-timeout", "--other-user", "--user"],
    assignments: true,
    example: "sudo -u root X=1 rm f",
  },
  doas: { flags: "ns", withValue: "uC", example: "doas -u root rm f" },
  env: { flags: "i0v", withValue: "uC", long: ["--ignore-environment", "--null", "--debug"], longWithValue: ["--unset", "--chdir"], assignments: true, example: "env -i A=1 rm f" },
  nice: { withValue: "n", longWithValue: ["--adjustment"], numeric: true, example: "nice -n 5 rm f" },
  nohup: { example: "nohup rm f" },
  timeout: { flags: "v", withValue: "sk", long: ["--foreground", "--preserve-status", "--verbose"], longWithValue: ["--signal", "--kill-after"], positional: 1, example: "timeout -s KILL 5 rm f" },
  time: { flags: "pvqa", withValue: "fo", long: ["--verbose", "--portability", "--quiet", "--append"], longWithValue: ["--format", "--output"], example: "time -p rm f" },
  stdbuf: { withValue: "ioe", longWithValue: ["--input", "--output", "--error"], example: "stdbuf -o0 rm f" },
  xargs: {
    flags: "0rtpxo",
    withValue: "nLIdaPsE",
    long: ["--null", "--no-run-if-empty", "--verbose", "--interactive", "--exit", "--open-tty"],
    longWithValue: ["--max-args", "--max-lines", "--replace", "--delimiter", "--arg-file", "--max-procs", "--max-chars", "--eof", "--process-slot-var"],
    openEnded: true,
    defaultCommand: "echo",
    example: "xargs -0 rm f",
  },
  command: { flags: "p", lookup: "vV", example: "command -p rm f" },
  builtin: { example: "builtin rm f" },
  exec: { flags: "cl", withValue: "a", example: "exec -a x rm f" },
  ionice: { flags: "t", withValue: "cnpPu", example: "ionice -c 3 rm f" },
  setsid: { flags: "cfw", long: ["--ctty", "--fork", "--wait"], example: "setsid -f rm f" },
  chronic: { flags: "ev", example: "chronic rm f" },
  unbuffer: { example: "unbuffer rm f" },
  busybox: { example: "busybox rm f" },
  coproc: { example: "coproc rm f" },
  flock: {
    flags: "sxeunoFv",
    withValue: "wEc",
    long: ["--shared", "--exclusive", "--unlock", "--nonblock", "--nb", "--close", "--no-fork", "--verbose"],
    longWithValue: ["--timeout", "--wait", "--conflict-exit-code", "--command"],
    positional: 1,
    code: { short: "c", long: ["--command"] },
    example: "flock -n lockfile rm f",
  },
  taskset: { flags: "acp", long: ["--all-tasks", "--cpu-list", "--pid"], positional: 1, example: "taskset -c 1 rm f" },
  chrt: {
    flags: "abdfiormpvR",
    withValue: "TPD",
    long: ["--all-tasks", "--batch", "--deadline", "--fifo", "--idle", "--other", "--rr", "--max", "--pid", "--verbose", "--reset-on-fork"],
    longWithValue: ["--sched-runtime", "--sched-period", "--sched-deadline"],
    positional: 1,
    example: "chrt -o 0 rm f",
  },
  unshare: {
    flags: "muinpUCTfrc",
    withValue: "RwSG",
    long: ["--mount", "--uts", "--ipc", "--net", "--pid", "--user", "--cgroup", "--time", "--fork", "--kill-child", "--mount-proc", "--map-root-user", "--map-current-user", "--map-auto", "--keep-caps", "--mount-binfmt"],
    longWithValue: ["--propagation", "--setgroups", "--root", "--wd", "--setuid", "--setgid", "--map-user", "--map-group", "--map-users", "--map-groups", "--monotonic", "--boottime"],
    shellByDefault: true,
    example: "unshare -r --fork rm f",
  },
  prlimit: {
    withValue: "po",
    long: ["--core", "--data", "--nice", "--fsize", "--sigpending", "--memlock", "--rss", "--nofile", "--msgqueue", "--rtprio", "--stack", "--cpu", "--nproc", "--as", "--locks", "--rttime", "--noheadings", "--raw", "--verbose"],
    longWithValue: ["--pid", "--output"],
    example: "prlimit --nofile=64 rm f",
  },
  setpriv: {
    flags: "d",
    long: ["--dump", "--clear-groups", "--keep-groups", "--init-groups", "--no-new-privs", "--nnp", "--reset-env"],
    longWithValue: ["--reuid", "--regid", "--ruid", "--euid", "--rgid", "--egid", "--groups", "--inh-caps", "--ambient-caps", "--bounding-set", "--securebits", "--pdeathsig", "--selinux-label", "--apparmor-profile", "--landlock-access", "--landlock-rule"],
    example: "setpriv --no-new-privs rm f",
  },
  nsenter: {
    flags: "amuinpUCTFZe",
    withValue: "tSG",
    long: ["--all", "--mount", "--uts", "--ipc", "--net", "--pid", "--user", "--cgroup", "--time", "--no-fork", "--preserve-credentials", "--follow-context", "--env"],
    longWithValue: ["--target", "--setuid", "--setgid", "--root", "--wd", "--wdns"],
    shellByDefault: true,
    example: "nsenter -t 1 -m rm f",
  },
  strace: { flags: "fFhqrtTvVxyzcCwDkiZ", withValue: "abeEIoOpPsSuUX", longWithValue: ["--output", "--trace", "--signal", "--user"], example: "strace -f -o log rm f" },
  ltrace: { flags: "fhiLrStTVC", withValue: "aAbeEFlnopsuwx", longWithValue: ["--output", "--align", "--library"], example: "ltrace -f rm f" },
  fakeroot: { flags: "uhv", withValue: "lisb", long: ["--unknown-is-real", "--help", "--version"], longWithValue: ["--lib", "--faked"], shellByDefault: true, example: "fakeroot -u rm f" },
  faketime: { flags: "mf", long: ["--exclude-monotonic"], longWithValue: ["--date-prog"], positional: 1, example: "faketime -f +1d rm f" },
  "xvfb-run": {
    flags: "alh",
    withValue: "efnspw",
    long: ["--auto-servernum", "--listen-tcp", "--help"],
    longWithValue: ["--error-file", "--auth-file", "--server-num", "--server-args", "--auth-protocol", "--wait"],
    example: "xvfb-run -a rm f",
  },
  numactl: {
    flags: "lsHab",
    withValue: "NmCipPw",
    long: ["--localalloc", "--hardware", "--show", "--all", "--balancing"],
    longWithValue: ["--interleave", "--preferred", "--preferred-many", "--membind", "--cpunodebind", "--physcpubind", "--cpubind", "--weighted-interleave"],
    example: "numactl -N 0 rm f",
  },
  chroot: { long: ["--skip-chdir"], longWithValue: ["--userspec", "--groups"], positional: 1, shellByDefault: true, example: "chroot / rm f" },
  "dbus-run-session": { longWithValue: ["--config-file", "--dbus-daemon"], example: "dbus-run-session -- rm f" },
  torsocks: { flags: "iq6d", withValue: "uaP", long: ["--isolate", "--quiet", "--ipv6", "--debug", "--shell"], longWithValue: ["--user", "--pass", "--address", "--port"], example: "torsocks -i rm f" },
  "systemd-run": {
    flags: "qGtPSr",
    withValue: "pEuM",
    long: ["--user", "--system", "--scope", "--quiet", "--wait", "--pipe", "--pty", "--collect", "--no-block", "--same-dir", "--shell", "--remain-after-exit", "--send-sighup", "--no-ask-password"],
    longWithValue: ["--unit", "--property", "--description", "--slice", "--setenv", "--uid", "--gid", "--nice", "--working-directory", "--machine", "--host", "--service-type", "--on-active", "--on-calendar", "--timer-property", "--path-property", "--socket-property"],
    example: "systemd-run --user --wait rm f",
  },
  runuser: {
    flags: "lmpfP",
    withValue: "ugGswc",
    long: ["--login", "--preserve-environment", "--pty", "--fast"],
    longWithValue: ["--user", "--group", "--supp-group", "--shell", "--whitelist-environment", "--session-command", "--command"],
    code: { short: "c", long: ["--command", "--session-command"] },
    example: "runuser -u nobody rm f",
  },
  su: {
    code: { short: "c", long: ["--command", "--session-command"] },
    codeOnly: true,
    shellByDefault: true,
    example: "su -c 'rm f' root",
  },
  linux32: { flags: "RFZLXBIST3v", long: ["--addr-no-randomize", "--fdpic-funcptrs", "--mmap-page-zero", "--addr-compat-layout", "--read-implies-exec", "--32bit", "--short-inode", "--whole-seconds", "--sticky-timeouts", "--3gb", "--4gb", "--uname-2.6", "--verbose"], shellByDefault: true, example: "linux32 -R rm f" },
  linux64: { flags: "RFZLXBIST3v", long: ["--addr-no-randomize", "--fdpic-funcptrs", "--mmap-page-zero", "--addr-compat-layout", "--read-implies-exec", "--32bit", "--short-inode", "--whole-seconds", "--sticky-timeouts", "--3gb", "--4gb", "--uname-2.6", "--verbose"], shellByDefault: true, example: "linux64 -R rm f" },
  script: {
    flags: "aefqEmh",
    withValue: "cotTIOBE",
    code: { short: "c", long: ["--command"] },
    codeOnly: true,
    shellByDefault: true,
    example: "script -qc 'rm f' /dev/null",
  },
  tar: {
    code: { short: "IF", long: ["--to-command", "--use-compress-program", "--info-script", "--new-volume-script", "--rsh-command", "--checkpoint-action"] },
    codeOnly: true,
    example: "tar -xf a.tar --to-command='rm f'",
  },
};

