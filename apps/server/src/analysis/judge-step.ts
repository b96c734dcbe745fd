import type { Config } from '../config.ts';
import { createJudge } from '../integrations/judge/chat-completions-judge.ts';
import { runJudgeJob } from './judge/judge-job.ts';
import type { JudgeStep } from './nightly.ts';

/** Scores judge metrics before the nightly analysis; null when no judge endpoint is configured. */
export function judgeStepFor(config: Config): JudgeStep | null {
  const judge = createJudge(config);
  if (judge === null) return null;
  return async (ctx, now) => {
    await runJudgeJob(ctx, judge, { now });
  };
}
