#!/usr/bin/env node
import 'reflect-metadata';
import { processIo } from './io.js';
import { runCli } from './program.js';

const io = processIo();
process.exitCode = await runCli(process.argv.slice(2), io);
