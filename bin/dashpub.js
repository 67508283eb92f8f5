#!/usr/bin/env node
// The CLI is compiled to dist/ by `npm run build` (run by `npm ci` through the prepare script).
import '../dist/shells/cli/main.js';
