import { readFileSync } from 'node:fs';
import { cpus, release, totalmem, type } from 'node:os';

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly node: string;
}

/** What the figures were measured on. Linux details come from /proc and /etc/os-release. */
export function describeMachine(): Machine {
  return {
    cpu: cpuModel(),
    cores: cpus().length,
    memoryGiB: totalmem() / 1024 ** 3,
    os: `${distribution() ?? type()} (kernel ${release()})`,
    node: process.version,
  };
}

function cpuModel(): string {
  const fromProc = readIfPresent('/proc/cpuinfo')
    ?.split('\n')
    .find((line) => line.startsWith('model name'))
    ?.split(':')[1]
    ?.trim();
  return fromProc ?? cpus()[0]?.model ?? 'unknown CPU';
}

function distribution(): string | undefined {
  const line = readIfPresent('/etc/os-release')
    ?.split('\n')
    .find((candidate) => candidate.startsWith('PRETTY_NAME='));
  return line?.slice('PRETTY_NAME='.length).replace(/^"|"$/g, '');
}

function readIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
