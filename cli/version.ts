import fs from 'node:fs';

/** Intake's version (package.json): `intake --version` and the User-Agent of forwarded events. */
export const VERSION: string = (
  JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
