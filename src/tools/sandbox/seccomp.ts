/**
 * A seccomp filter, in the classic-BPF form bwrap's `--seccomp FD` loads, that keeps a sandboxed
 * command off the host's local services when its network is off:
 *
 * - `socket(AF_UNIX, …)` fails with EPERM. A network namespace hides TCP loopback and abstract
 *   sockets, but Unix sockets on the file system (a Docker socket, an ssh-agent, a tmux server, the
 *   session bus) stay reachable through the read-only mounts: connect() needs no write access.
 *   `socketpair()` stays allowed, so pipes between a program's own processes keep working.
 * - io_uring is refused: its SOCKET operation would create the same socket past this filter.
 * - A system call made through another ABI (32-bit i386 or x32 on x86-64) is refused, since its
 *   numbers differ and `socketcall()` could multiplex socket() past the check.
 *
 * Nothing else is filtered: read-only mounts, namespaces and dropped capabilities do the rest.
 */

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_RET_K = 0x06;

const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
const AF_UNIX = 1;
const X32_SYSCALL_BIT = 0x40000000;

/** Offsets in struct seccomp_data: nr, arch, then args[] (the low word of args[0] on little-endian). */
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0_LOW = 16;

interface Arch {
  audit: number;
  socket: number;
  ioUring: readonly number[];
  x32: boolean;
}

const ARCHES: Partial<Record<NodeJS.Architecture, Arch>> = {
  x64: { audit: 0xc000003e, socket: 41, ioUring: [425, 426, 427], x32: true },
  arm64: { audit: 0xc00000b7, socket: 198, ioUring: [425, 426, 427], x32: false },
};

type Insn = [code: number, jt: number, jf: number, k: number];

/** The filter for this machine's architecture, or null where orca has no numbers for it. */
export function unixSocketFilter(arch: NodeJS.Architecture = process.arch): Buffer | null {
  const a = ARCHES[arch];
  if (!a || !isLittleEndian()) return null;
  const deny: Insn = [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM];
  // Jump offsets count from the next instruction: (jt, jf) = (0, 1) runs the deny that follows
  // when the test holds and skips over it when it does not.
  const program: Insn[] = [[BPF_LD_W_ABS, 0, 0, OFFSET_ARCH], [BPF_JEQ_K, 1, 0, a.audit], deny, [BPF_LD_W_ABS, 0, 0, OFFSET_NR]];
  if (a.x32) program.push([BPF_JGE_K, 0, 1, X32_SYSCALL_BIT], deny);
  for (const nr of a.ioUring) program.push([BPF_JEQ_K, 0, 1, nr], deny);
  program.push(
    [BPF_JEQ_K, 0, 3, a.socket],
    [BPF_LD_W_ABS, 0, 0, OFFSET_ARG0_LOW],
    [BPF_JEQ_K, 0, 1, AF_UNIX],
    deny,
    [BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW],
  );

  const out = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], i) => {
    out.writeUInt16LE(code, i * 8);
    out.writeUInt8(jt, i * 8 + 2);
    out.writeUInt8(jf, i * 8 + 3);
    out.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return out;
}

function isLittleEndian(): boolean {
  return new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
}
