#!/usr/bin/env node
// The built CLI lives in build/ (made by "npm run build", which "npm ci" runs through "prepare").
import { main } from '../build/src/cli/main.js';
import { processIo } from '../build/src/cli/io.js';

process.exitCode = await main(process.argv.slice(2), processIo());
