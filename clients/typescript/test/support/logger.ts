import type { Logger } from '../../src/types.ts';

/** Keeps log lines so that tests can count them. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    warn: (m) => {
      lines.push(`warn ${m}`);
    },
    error: (m) => {
      lines.push(`error ${m}`);
    },
  };
}
