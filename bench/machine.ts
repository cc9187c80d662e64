import os from 'node:os';

/** The machine a run measured, recorded with its numbers. */
export interface MachineInfo {
  readonly cpuModel: string;
  readonly cores: number;
  readonly totalMemoryGb: number;
  readonly platform: string;
  readonly node: string;
  readonly openssl: string;
  /** 1-minute load average when the run started: a busy machine makes every number lower. */
  readonly loadAverageAtStart: number;
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    totalMemoryGb: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
    openssl: process.versions.openssl ?? 'unknown',
    loadAverageAtStart: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
  };
}
