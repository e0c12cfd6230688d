import { unsupportedNode } from './supported-node';

/** Imported first by the entry points (main, the key command): an unsupported Node stops here, in one line. */
const refused = unsupportedNode(process.versions.node);
if (refused) {
  process.stderr.write(`${refused}\n`);
  process.exit(1);
}
