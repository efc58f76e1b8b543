import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '@chatlytics/core';
import { createChdbEngine } from '../src/chdb-engine.js';
import { engineContract } from './contract.js';

// chdb binds one data directory per process; tap runs each file in its own process.
const dir = mkdtempSync(path.join(tmpdir(), 'chatlytics-chdb-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

engineContract(t, () => createChdbEngine({ path: dir, database: 'contract', log: createLogger('silent') }));
