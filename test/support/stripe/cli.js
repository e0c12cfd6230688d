#!/usr/bin/env node
// The Stripe stand-in on its own, beside `npm start`, for trying the adapter by hand:
//
//   node test/support/stripe/cli.js --port 12111
//
// then point the app's Stripe API base at the printed URL. Each request is logged with whether
// Stripe's spec accepted it. Plain JS that compiles the TypeScript stand-in with ts-node on
// the fly (transpile only), so it needs no build step.
'use strict';
const { join } = require('node:path');

require('ts-node').register({
  transpileOnly: true,
  project: join(__dirname, '..', '..', '..', 'tsconfig.json'),
});
const { startStripeStandIn } = require('./stand-in');

const at = process.argv.indexOf('--port');
const port = at > 0 ? Number(process.argv[at + 1]) : 12111;

startStripeStandIn({ port, log: (line) => console.log(`${new Date().toISOString()} ${line}`) }).then(
  (standIn) => {
    console.log(`Stripe stand-in listening on ${standIn.url}`);
    console.log(`  new Stripe(key, { host: '127.0.0.1', port: ${standIn.port}, protocol: 'http' })`);
    const stop = () => {
      console.log(`${standIn.validatedCount} valid requests, ${standIn.invalid().length} refused`);
      void standIn.close().then(() => process.exit(0));
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  },
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
