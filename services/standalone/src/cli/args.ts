/** `--name value` and `--name=value` options plus positionals; a flag without a value is 'true'. */
export interface ParsedArgs {
  positionals: string[];
  options: Record<string, string>;
}

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positionals: string[] = [];
  const options: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    if (eq > 0) {
      options[arg.slice(2, eq)] = arg.slice(eq + 1);
    } else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) {
      options[arg.slice(2)] = argv[++i];
    } else {
      options[arg.slice(2)] = 'true';
    }
  }
  return { positionals, options };
}

export class UsageError extends Error {
  override name = 'UsageError';
}

export function required(args: ParsedArgs, name: string, usage: string): string {
  const value = args.options[name];
  if (!value || value === 'true') throw new UsageError(`--${name} is required (usage: ${usage})`);
  return value;
}
