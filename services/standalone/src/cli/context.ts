import type { Config, Logger } from '@chatlytics/core';

export interface CommandContext {
  config: Config;
  log: Logger;
}
