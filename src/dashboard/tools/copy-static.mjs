#!/usr/bin/env node
/**
 * Copies the dashboard's HTML and CSS (src/dashboard/static/) next to its compiled modules in
 * build/browser/, so that the package ships the whole page from build/ and no source folder.
 * Part of "npm run build", after tsc.
 */
import { cpSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const from = fileURLToPath(new URL('../static/', import.meta.url));
const to = fileURLToPath(new URL('../../../build/browser/', import.meta.url));
cpSync(from, to, { recursive: true });
