/** Whether this run is CI's, where every test must run: CI set to anything but "", "0" or "false" (CI=true on GitHub, and in .ci/run). */
export function isCI(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI?.trim().toLowerCase();
  return ci !== undefined && ci !== '' && ci !== '0' && ci !== 'false';
}
