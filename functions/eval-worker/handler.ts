import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSRecord } from 'aws-lambda';
import * as z from 'zod/mini';
import { EVAL_MAX_RECEIVE_COUNT } from '../../layers/core/domain/evaluation';
import { isId } from '../../layers/core/domain/ids';
import { MetricUnit, serviceMetrics } from '../../layers/core/observability/metrics';
import { endEvaluation, runEvaluation } from '../../layers/core/use-cases/evals/run-evaluation';
import { RetryLaterError } from '../../layers/core/workers/retry-later-error';
import { receiveCountOf, sqsWorker, workingAttemptsOf } from '../../layers/core/workers/sqs-worker';
import { dependencies } from './wiring';

const logger = new Logger({ serviceName: 'svc-eval-worker' });

const evaluationRunMessage = z.strictObject({
  org_id: z.string().check(z.refine((value) => isId('organization', value))),
  eval_id: z.string().check(z.refine((value) => isId('evaluation', value))),
});

/** Deliveries that may ask questions; the last one only ends the run (issue 14). */
const WORKING_ATTEMPTS = workingAttemptsOf(EVAL_MAX_RECEIVE_COUNT);
/**
 * Time kept back before the Lambda deadline: a question (retrieval and one
 * model answer, the query function's 60 s at most) plus writing its result.
 * With less left, the run pauses and queues itself again.
 */
const PAUSE_MARGIN_MS = 90_000;

/**
 * The eval queue's consumer (issue 11 item 5): runs each evaluation through
 * the query use case, one question at a time, recording each
 * result once. Before the Lambda deadline it pauses and sends its
 * message again, so a 500-question run spans invocations; a crash or
 * timeout brings the message back and the run resumes after the last
 * recorded question. On the queue's last delivery the run is ended
 * `failed` with what it has, so it never stays `running` (the stack's
 * batch size is 1).
 */
export const handler = sqsWorker({
  logger,
  messageKind: 'evaluation',
  parse: (body) => evaluationRunMessage.parse(body),
  handle: runMessage,
});

async function runMessage(
  message: z.infer<typeof evaluationRunMessage>,
  record: SQSRecord,
  context: Context | undefined,
): Promise<void> {
  const deps = dependencies();
  const attempt = receiveCountOf(record);
  if (attempt > WORKING_ATTEMPTS) {
    await giveUp(
      message,
      `the run did not finish in ${WORKING_ATTEMPTS} attempts: the worker stopped (crashed or timed out) while running it`,
    );
    return;
  }
  const pause = () => context !== undefined && context.getRemainingTimeInMillis() < PAUSE_MARGIN_MS;
  try {
    const run = await runEvaluation(deps, message, pause);
    if (run.outcome === 'paused') {
      // A new message, so the receive count starts again: pausing is progress, not failure.
      await deps.evaluationQueue.send(message);
      logger.info('Evaluation paused before the deadline', {
        eval_id: message.eval_id,
        completed: run.completed,
      });
      return;
    }
    const evaluation = run.evaluation;
    if (evaluation?.totals) {
      const metrics = serviceMetrics();
      metrics.addMetric(
        evaluation.status === 'failed' ? 'EvaluationsFailed' : 'EvaluationsCompleted',
        MetricUnit.Count,
        1,
      );
      metrics.addMetric('EvaluationQuestions', MetricUnit.Count, evaluation.totals.questions);
    }
    logger.info('Evaluation ended', { eval_id: message.eval_id, status: evaluation?.status });
  } catch (error) {
    logger.error('Evaluation run failed; it will be retried', {
      eval_id: message.eval_id,
      attempt,
      error: error as Error,
    });
    throw new RetryLaterError('evaluation run failed', { cause: error });
  }
}

/** Ends the run `failed` with the results it has; if even that fails, the message is retried (and dead-lettered at last). */
async function giveUp(
  message: z.infer<typeof evaluationRunMessage>,
  reason: string,
): Promise<void> {
  const deps = dependencies();
  try {
    const evaluation = await deps.evaluations.get(message.org_id, message.eval_id);
    if (!evaluation || evaluation.status === 'completed' || evaluation.status === 'failed') return;
    const items = await deps.evaluations.items(message.org_id, evaluation.id, {
      limit: evaluation.question_count,
      offset: 0,
    });
    await endEvaluation(deps, message.org_id, evaluation, items, {
      code: 'internal_error',
      message: reason,
    });
    serviceMetrics().addMetric('EvaluationsFailed', MetricUnit.Count, 1);
    logger.warn('Evaluation failed for good', { eval_id: message.eval_id, reason });
  } catch (failure) {
    logger.error('Could not end the evaluation', {
      eval_id: message.eval_id,
      error: failure as Error,
    });
    throw new RetryLaterError('could not end the evaluation', { cause: failure });
  }
}
