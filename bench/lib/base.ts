/**
 * `--base <commit>`: that commit as a git worktree in a temporary directory, to run its code
 * beside this checkout's. Its node_modules links, entry by entry, to this checkout's installed
 * dependencies, except the workspace packages (@chatlytics/*), which point into the worktree so
 * that the base's own code runs. A base whose npm dependencies differ from this checkout's runs
 * with this checkout's: run `npm ci` in the printed directory first when that matters. The
 * worktree is removed when the run ends, Ctrl-C included.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onExit } from './child.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface BaseTree {
  commit: string;
  /** The worktree's root. */
  dir: string;
  /** Removes the worktree (also done when the run ends). */
  remove(): void;
}

/** Links `tree`/node_modules to `root`'s, the workspace packages into `tree` itself. */
function linkNodeModules(root: string, tree: string): void {
  const nm = path.join(root, 'node_modules');
  fs.mkdirSync(path.join(tree, 'node_modules/@chatlytics'), { recursive: true });
  for (const name of fs.readdirSync(nm)) {
    if (name !== '@chatlytics') fs.symlinkSync(path.join(nm, name), path.join(tree, 'node_modules', name));
  }
  for (const name of fs.readdirSync(path.join(nm, '@chatlytics'))) {
    // npm links a workspace as ../../<its folder>: the same folder in the worktree.
    const target = fs.readlinkSync(path.join(nm, '@chatlytics', name)).replace(/^(\.\.\/)+/, '');
    fs.symlinkSync(path.join(tree, target), path.join(tree, 'node_modules/@chatlytics', name));
  }
}

/** Checks `commit` out in a temporary worktree of the repository at `root`, ready to run. */
export function checkoutBase(commit: string, root = REPO_ROOT): BaseTree {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-base-'));
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: ['ignore', 'pipe', 'inherit'] }).toString().trim();
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    try {
      git('worktree', 'remove', '--force', dir);
    } catch {
      // not (or no longer) a worktree: the directory and git's record of it go below
    }
    fs.rmSync(dir, { recursive: true, force: true });
    git('worktree', 'prune');
  };
  const forget = onExit(remove);
  try {
    git('worktree', 'add', '--detach', '--quiet', dir, commit);
    linkNodeModules(root, dir);
  } catch (err) {
    forget();
    remove();
    throw err;
  }
  return { commit: git('-C', dir, 'rev-parse', '--short', 'HEAD'), dir, remove: () => { forget(); remove(); } };
}
