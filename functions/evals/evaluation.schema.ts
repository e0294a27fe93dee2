import * as z from 'zod/mini';
import {
  EVALUATION_LIMITS,
  EVALUATION_STATUSES,
  FROM_INTERACTIONS_FEEDBACK,
  FROM_INTERACTIONS_LIMIT,
} from '../../layers/core/domain/evaluation';
import { VERDICT_CHECKS, VERDICT_OUTCOMES } from '../../layers/core/domain/evaluation-verdict';
import { isId } from '../../layers/core/domain/ids';
import { BILLED_TO } from '../../layers/core/domain/model-key';
import {
  DOCUMENT_TITLE_DESCRIPTION,
  DOCUMENT_URL_DESCRIPTION,
} from '../../layers/core/http/cited-source.schema';
import { paginationQuery } from '../../layers/core/http/pagination.schema';

const agentId = z.string().check(z.refine((value) => isId('agent', value), 'must be an agt_ id'));

/** A `YYYY-MM-DD` day (from its midnight UTC) or a UTC timestamp. */
const since = z.pipe(
  z
    .string()
    .check(
      z.regex(
        /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z)?$/,
        'must be a date like 2026-11-21 or a UTC timestamp like 2026-11-21T10:00:00.000Z',
      ),
    ),
  z.transform((value: string, context) => {
    const date = new Date(value.length === 10 ? `${value}T00:00:00.000Z` : value);
    if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value.slice(0, 10)) {
      context.issues.push({ code: 'custom', message: 'is not a real date', input: value });
      return z.NEVER;
    }
    return date;
  }),
);

const question = z.strictObject({
  question: z
    .string()
    .check(
      z.trim(),
      z.minLength(1, 'must not be empty'),
      z.maxLength(EVALUATION_LIMITS.questionMax),
    ),
  expected_answer: z.optional(
    z.nullable(
      z
        .string()
        .check(
          z.trim(),
          z.minLength(1, 'must not be empty'),
          z.maxLength(EVALUATION_LIMITS.expectedAnswerMax),
        ),
    ),
  ),
  expected_sources: z.optional(
    z.nullable(
      z
        .array(
          z
            .string()
            .check(
              z.trim(),
              z.minLength(1, 'must not be empty'),
              z.maxLength(EVALUATION_LIMITS.expectedSourceMax),
            ),
        )
        .check(z.maxLength(EVALUATION_LIMITS.expectedSourcesMax)),
    ),
  ),
});

/**
 * `POST /api/v1/evals` (issue 11 item 5): an agent and either its questions
 * (1–500) or `from_interactions`, never both.
 */
export const createEvaluationBody = z
  .strictObject({
    agent_id: agentId,
    name: z.optional(
      z.nullable(
        z.string().check(z.trim(), z.minLength(1), z.maxLength(EVALUATION_LIMITS.nameMax)),
      ),
    ),
    questions: z.optional(
      z
        .array(question)
        .check(
          z.minLength(1, 'must hold at least one question'),
          z.maxLength(
            EVALUATION_LIMITS.questionsMax,
            `must hold at most ${EVALUATION_LIMITS.questionsMax} questions`,
          ),
        ),
    ),
    from_interactions: z.optional(
      z.strictObject({
        agent_id: z.optional(agentId),
        feedback: z._default(z.enum(FROM_INTERACTIONS_FEEDBACK), 'positive'),
        since: z.optional(since),
        limit: z._default(
          z.int().check(z.minimum(1), z.maximum(FROM_INTERACTIONS_LIMIT.max)),
          FROM_INTERACTIONS_LIMIT.default,
        ),
      }),
    ),
  })
  .check(
    z.refine((body) => (body.questions === undefined) !== (body.from_interactions === undefined), {
      message: 'give either questions or from_interactions (exactly one)',
      path: ['questions'],
    }),
  );

/** `agent_id` keeps one agent's runs (the console compares two of them). */
export const listEvaluationsQuery = z.strictObject({
  ...paginationQuery,
  agent_id: z.optional(agentId),
});

/** `limit` and `offset` page the run's per-question results. */
export const getEvaluationQuery = z.strictObject(paginationQuery);

const ratio = z.nullable(z.number());

export const evaluationTotalsResource = z.object({
  questions: z.int(),
  answered: z.int(),
  failed: z.int(),
  no_answer: z.int(),
  retrieval_recall: ratio,
  citation_precision: ratio,
  citation_recall: ratio,
  answer_support: ratio,
  answer_f1: ratio,
  latency_ms: z.object({ p50: z.nullable(z.int()), p95: z.nullable(z.int()) }),
  judged: z.optional(
    z
      .int()
      .check(
        z.describe(
          'Questions given a right/wrong verdict (answered, with an expected answer or expected sources); absent on runs completed before verdicts',
        ),
      ),
  ),
  right: z.optional(z.int().check(z.describe('Judged questions whose verdict is right'))),
  pass_rate: z.optional(
    z.nullable(
      z
        .number()
        .check(
          z.describe(
            'right / judged, 0–1; null when no question was judged. The one figure that says how often the agent was right: answer_support measures groundedness (sentences backed by a cited passage), not correctness',
          ),
        ),
    ),
  ),
  tokens_input: z.int(),
  tokens_output: z.int(),
  cost_usd: z.number(),
});

const errorResource = z.nullable(z.object({ code: z.string(), message: z.string() }));

export const evaluationResource = z.object({
  id: z.string(),
  name: z.nullable(z.string()),
  agent_id: z.string(),
  status: z.enum(EVALUATION_STATUSES),
  question_count: z.int(),
  completed_count: z.int(),
  source: z.union([
    z.object({ type: z.literal('questions') }),
    z.object({
      type: z.literal('interactions'),
      agent_id: z.string(),
      feedback: z.enum(FROM_INTERACTIONS_FEEDBACK),
      since: z.nullable(z.string()),
      limit: z.int(),
    }),
  ]),
  totals: z.nullable(evaluationTotalsResource),
  error: errorResource,
  created_at: z.string(),
  started_at: z.nullable(z.string()),
  completed_at: z.nullable(z.string()),
});

export const verdictResource = z.nullable(
  z
    .object({
      outcome: z.enum(VERDICT_OUTCOMES),
      checks: z.array(
        z.object({
          check: z.enum(VERDICT_CHECKS),
          passed: z.boolean(),
          reason: z.string().check(z.describe('Why, in a sentence a person reads')),
        }),
      ),
    })
    .check(
      z.describe(
        'Right or wrong, and why: wrong when the agent said it could not answer, when the answer lacks the expected answer (whole, or 80% of its key words), or when it cites none of the expected sources; unjudged when the question expects neither an answer nor sources. Null for a question that failed or was not asked',
      ),
    ),
);

export const evaluationResultResource = z.object({
  index: z.int(),
  question: z.string(),
  expected_answer: z.nullable(z.string()),
  expected_sources: z.nullable(z.array(z.string())),
  source_interaction_id: z.nullable(z.string()),
  verdict: verdictResource,
  result: z.nullable(
    z.object({
      status: z.enum(['answered', 'failed']),
      interaction_id: z.nullable(z.string()),
      response: z.nullable(z.string()),
      sources: z.array(
        z.object({
          chunk_id: z.string(),
          document_id: z.optional(
            z.string().check(z.describe('The document the chunk belongs to (doc_…)')),
          ),
          data_source_id: z.optional(
            z.string().check(z.describe('The data source the document belongs to (ds_…)')),
          ),
          document_title: z.string().check(z.describe(DOCUMENT_TITLE_DESCRIPTION)),
          document_url: z.nullable(z.string()).check(z.describe(DOCUMENT_URL_DESCRIPTION)),
          similarity_score: z.number(),
        }),
      ),
      retrieved_documents: z.array(z.string()),
      metrics: z.nullable(
        z.object({
          retrieval_recall: ratio,
          citation_precision: ratio,
          citation_recall: ratio,
          answer_support: ratio,
          answer_sentences: z.int(),
          supported_sentences: z.int(),
          answer_f1: ratio,
          no_answer: z.boolean(),
        }),
      ),
      latency_ms: z.nullable(z.int()),
      tokens_input: z.int(),
      tokens_output: z.int(),
      cost_usd: z.number(),
      billed_to: z.nullable(z.enum(BILLED_TO)),
      error: errorResource,
      answered_at: z.string(),
    }),
  ),
});

export const evaluationWithResults = z.extend(evaluationResource, {
  results: z.array(evaluationResultResource),
  limit: z.int(),
  offset: z.int(),
});

export const evaluationList = z.object({
  evals: z.array(evaluationResource),
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
});
