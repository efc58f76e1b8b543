import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createEmbeddedBus } from '../src/index.js';
import { runBusContract } from './contract.js';
import { testBackoff, testLog } from './helpers.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bus-contract-'));
t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;

runBusContract(t, () => {
  const dir = path.join(root, `scope-${n++}`);
  return { open: () => createEmbeddedBus({ dir, log: testLog, retryBackoff: testBackoff }) };
});
