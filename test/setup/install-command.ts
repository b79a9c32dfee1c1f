/**
 * The one command that installs what the tests miss, with this machine's package manager.
 */
import { spawnSync } from 'node:child_process';

export type Missing = 'postgres' | 'chromium';

const PACKAGES: Record<string, Record<Missing, string>> = {
  'apt-get': { postgres: 'postgresql', chromium: 'chromium' },
  dnf: { postgres: 'postgresql-server', chromium: 'chromium' },
};

/** Whether a command of this name is on PATH. */
export function onPath(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

export function installCommand(missing: Missing[]): string {
  if (process.platform === 'darwin' && onPath('brew')) {
    return [missing.includes('postgres') ? 'brew install postgresql@17' : '', missing.includes('chromium') ? 'brew install --cask chromium' : ''].filter(Boolean).join(' && ');
  }
  const manager = Object.keys(PACKAGES).find(onPath);
  if (!manager) return `install ${missing.map((what) => (what === 'postgres' ? "PostgreSQL's server (initdb, pg_ctl)" : 'Chromium')).join(' and ')} with this system's package manager`;
  const sudo = process.getuid?.() === 0 ? '' : 'sudo ';
  return `${sudo}${manager} install -y ${missing.map((what) => PACKAGES[manager]?.[what]).join(' ')}`;
}
