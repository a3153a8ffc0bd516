import { execSync } from 'node:child_process';
import os from 'node:os';

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  os: string;
  node: string;
  /** 1, 5 and 15 minute load averages when the run started: other work on the machine. */
  loadAverage: number[];
  commit: string;
}

/** What the report says about the machine, so numbers from different machines are not compared blindly. */
export function machineInfo(): MachineInfo {
  let commit = 'unknown';
  try {
    commit = execSync('git rev-parse --short HEAD', { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {}
  return {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    loadAverage: os.loadavg().map((value) => Math.round(value * 100) / 100),
    commit,
  };
}
