/**
 * The OpenSearch REST requests the adapter sends, checked against the shapes
 * OpenSearch's documentation gives them — not against what the adapter's
 * author expected. Each rule names its page (docs.opensearch.org, 2.x/3.x):
 *
 * - Create index: https://docs.opensearch.org/latest/api-reference/index-apis/create-index/
 *   (body: `settings`, `mappings`, `aliases`)
 * - Put mapping: https://docs.opensearch.org/latest/api-reference/index-apis/put-mapping/
 *   (PUT; body: `properties`, `dynamic`, `_meta`, …)
 * - Mapping parameters and field types:
 *   https://docs.opensearch.org/latest/field-types/ (`type`, `index`,
 *   `doc_values`, `fields`, `analyzer`, `similarity`) and
 *   https://docs.opensearch.org/latest/field-types/supported-field-types/knn-vector/
 *   (`dimension` up to 16,000; `method`: `name`, `engine`, `space_type`, `parameters`)
 * - Search: https://docs.opensearch.org/latest/api-reference/search-apis/search/
 *   (body: `size`, `from`, `query`, `_source`, `terminate_after`, `aggs`, … ;
 *   query: `routing`, `ignore_unavailable`, `allow_no_indices`, …)
 * - Multi-search: https://docs.opensearch.org/latest/api-reference/search-apis/multi-search/
 *   (NDJSON: a metadata line — `index`, `routing`, `ignore_unavailable`,
 *   `allow_no_indices`, … — then a search body, the last line ending in a newline)
 * - Bulk: https://docs.opensearch.org/latest/api-reference/document-apis/bulk/
 *   (NDJSON: `index`/`create`/`update`/`delete` with `_index`, `_id`,
 *   `routing`; a document after `index` and `create`; query `refresh`
 *   true/false/wait_for, `routing`, `timeout`, …)
 * - Count: https://docs.opensearch.org/latest/api-reference/search-apis/count/
 *   (body: `query`)
 * - Delete by query: https://docs.opensearch.org/latest/api-reference/document-apis/delete-by-query/
 *   (body: `query`, `max_docs`; query: `refresh` (true/false only),
 *   `conflicts` abort/proceed, `routing`, `allow_no_indices`, `ignore_unavailable`, …)
 * - Query DSL: https://docs.opensearch.org/latest/query-dsl/ — `bool`
 *   (`must`, `should`, `filter`, `must_not`, `minimum_should_match`), `term`,
 *   `terms`, `match` (`query`, `boost`, `operator`, …), `match_all`, `ids`;
 *   and the k-NN query, https://docs.opensearch.org/latest/vector-search/filter-search-knn/efficient-knn-filtering/
 *   (`knn: { <field>: { vector, k, filter } }`)
 * - Composite aggregation: https://docs.opensearch.org/latest/aggregations/bucket/composite/
 *   (`sources` of named `terms` sources, `size`, `after`)
 */
import type { RecordedRequest } from './recording-opensearch';

type Problems = string[];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function onlyKeys(value: unknown, allowed: readonly string[], where: string, problems: Problems) {
  if (!isObject(value)) {
    problems.push(`${where} must be an object`);
    return false;
  }
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) problems.push(`${where}.${key} is not a documented field`);
  }
  return true;
}

const FIELD_MAPPING_KEYS = [
  'type',
  'index',
  'doc_values',
  'store',
  'fields',
  'analyzer',
  'search_analyzer',
  'similarity',
  'dimension',
  'method',
  'data_type',
  'space_type',
  'properties',
  'ignore_above',
  'null_value',
  'norms',
  'copy_to',
] as const;
const FIELD_TYPES = [
  'keyword',
  'text',
  'integer',
  'long',
  'short',
  'byte',
  'float',
  'double',
  'boolean',
  'date',
  'object',
  'nested',
  'knn_vector',
] as const;
const KNN_METHOD_NAMES = ['hnsw', 'ivf'];
const KNN_ENGINES = ['lucene', 'faiss', 'nmslib'];
const KNN_SPACE_TYPES = ['l2', 'cosinesimil', 'innerproduct', 'l1', 'linf', 'hamming'];

function checkFieldMapping(name: string, mapping: unknown, problems: Problems) {
  const where = `properties.${name}`;
  if (!onlyKeys(mapping, FIELD_MAPPING_KEYS, where, problems)) return;
  const field = mapping as Record<string, any>;
  if (!FIELD_TYPES.includes(field.type)) problems.push(`${where}.type ${field.type} is unknown`);
  for (const [sub, subMapping] of Object.entries(field.fields ?? {})) {
    checkFieldMapping(`${name}.fields.${sub}`, subMapping, problems);
  }
  if (field.type === 'knn_vector') {
    if (!Number.isInteger(field.dimension) || field.dimension < 1 || field.dimension > 16_000) {
      problems.push(`${where}.dimension must be a whole number from 1 to 16,000`);
    }
    if (field.method !== undefined) {
      onlyKeys(
        field.method,
        ['name', 'engine', 'space_type', 'parameters'],
        `${where}.method`,
        problems,
      );
      if (!KNN_METHOD_NAMES.includes(field.method.name))
        problems.push(`${where}.method.name ${field.method.name} is unknown`);
      if (!KNN_ENGINES.includes(field.method.engine))
        problems.push(`${where}.method.engine ${field.method.engine} is unknown`);
      if (!KNN_SPACE_TYPES.includes(field.method.space_type))
        problems.push(`${where}.method.space_type ${field.method.space_type} is unknown`);
      if (field.method.engine === 'lucene' && field.method.name !== 'hnsw')
        problems.push(`${where}.method: the lucene engine builds hnsw only`);
    }
  }
}

function checkProperties(properties: unknown, problems: Problems) {
  if (!isObject(properties)) {
    problems.push('properties must be an object');
    return;
  }
  for (const [name, mapping] of Object.entries(properties))
    checkFieldMapping(name, mapping, problems);
}

const MAPPINGS_KEYS = ['properties', 'dynamic', '_meta', '_routing', '_source', 'date_detection'];

/** A query clause of the DSL. */
function checkQuery(query: unknown, where: string, problems: Problems) {
  if (!isObject(query) || Object.keys(query).length !== 1) {
    problems.push(`${where} must be an object with exactly one query type`);
    return;
  }
  const [[type, body]] = Object.entries(query) as [[string, any]];
  switch (type) {
    case 'bool': {
      onlyKeys(
        body,
        ['must', 'should', 'filter', 'must_not', 'minimum_should_match', 'boost'],
        `${where}.bool`,
        problems,
      );
      for (const occur of ['must', 'should', 'filter', 'must_not']) {
        const clauses = body?.[occur];
        if (clauses === undefined) continue;
        for (const [index, clause] of [clauses].flat().entries())
          checkQuery(clause, `${where}.bool.${occur}[${index}]`, problems);
      }
      return;
    }
    case 'term':
    case 'terms': {
      if (!isObject(body) || Object.keys(body).filter((key) => key !== 'boost').length !== 1)
        problems.push(`${where}.${type} must name one field`);
      if (type === 'terms' && isObject(body)) {
        const [field] = Object.keys(body).filter((key) => key !== 'boost');
        if (field && !Array.isArray(body[field]))
          problems.push(`${where}.terms.${field} must be an array`);
      }
      return;
    }
    case 'match': {
      if (!isObject(body) || Object.keys(body).length !== 1) {
        problems.push(`${where}.match must name one field`);
        return;
      }
      const [[field, options]] = Object.entries(body) as [[string, unknown]];
      if (isObject(options)) {
        onlyKeys(
          options,
          ['query', 'boost', 'operator', 'minimum_should_match', 'analyzer', 'fuzziness'],
          `${where}.match.${field}`,
          problems,
        );
        if (typeof options.query !== 'string')
          problems.push(`${where}.match.${field}.query must be a string`);
      } else if (typeof options !== 'string')
        problems.push(`${where}.match.${field} must be a string or options`);
      return;
    }
    case 'knn': {
      if (!isObject(body) || Object.keys(body).length !== 1) {
        problems.push(`${where}.knn must name one vector field`);
        return;
      }
      const [[field, options]] = Object.entries(body) as [[string, any]];
      onlyKeys(
        options,
        [
          'vector',
          'k',
          'filter',
          'min_score',
          'max_distance',
          'method_parameters',
          'rescore',
          'expand_nested_docs',
        ],
        `${where}.knn.${field}`,
        problems,
      );
      if (
        !Array.isArray(options?.vector) ||
        !options.vector.every((x: unknown) => typeof x === 'number')
      )
        problems.push(`${where}.knn.${field}.vector must be an array of numbers`);
      if (!Number.isInteger(options?.k) || options.k < 1)
        problems.push(`${where}.knn.${field}.k must be a positive whole number`);
      if (options?.filter !== undefined)
        checkQuery(options.filter, `${where}.knn.${field}.filter`, problems);
      return;
    }
    case 'match_all':
      onlyKeys(body, ['boost'], `${where}.match_all`, problems);
      return;
    case 'ids':
      onlyKeys(body, ['values'], `${where}.ids`, problems);
      return;
    default:
      problems.push(
        `${where}: query type ${type} is not one this checker knows from the documentation`,
      );
  }
}

const SEARCH_BODY_KEYS = [
  'size',
  'from',
  'query',
  '_source',
  'terminate_after',
  'aggs',
  'aggregations',
  'track_total_hits',
  'min_score',
  'sort',
  'timeout',
  'post_filter',
];

function checkAggregations(aggs: unknown, problems: Problems): void {
  if (!isObject(aggs)) {
    problems.push('aggs must be an object');
    return;
  }
  for (const [name, agg] of Object.entries(aggs)) {
    if (!isObject(agg) || !('composite' in agg)) {
      problems.push(`aggs.${name}: only the composite aggregation is checked`);
      continue;
    }
    const composite = agg.composite as Record<string, any>;
    onlyKeys(composite, ['sources', 'size', 'after'], `aggs.${name}.composite`, problems);
    for (const [index, source] of (composite.sources ?? []).entries()) {
      const entries = Object.entries(source ?? {});
      const [, kind] = entries[0] ?? [];
      if (entries.length !== 1 || !isObject(kind) || !('terms' in kind))
        problems.push(`aggs.${name}.composite.sources[${index}] must be one named terms source`);
    }
  }
}

function checkSearchBody(body: unknown, where: string, problems: Problems) {
  if (!onlyKeys(body, SEARCH_BODY_KEYS, where, problems)) return;
  const search = body as Record<string, any>;
  if (search.size !== undefined && !(Number.isInteger(search.size) && search.size >= 0))
    problems.push(`${where}.size must be a whole number`);
  if (search.query !== undefined) checkQuery(search.query, `${where}.query`, problems);
  if (search.aggs !== undefined) checkAggregations(search.aggs, problems);
}

const SEARCH_QUERY_PARAMETERS = [
  'routing',
  'ignore_unavailable',
  'allow_no_indices',
  'expand_wildcards',
  'preference',
  'timeout',
  'terminate_after',
  'size',
  'from',
  'track_total_hits',
];
const MSEARCH_METADATA = [
  'index',
  'routing',
  'ignore_unavailable',
  'allow_no_indices',
  'expand_wildcards',
  'preference',
  'search_type',
  'request_cache',
];
const BULK_ACTIONS = ['index', 'create', 'update', 'delete'];
const BULK_METADATA = [
  '_index',
  '_id',
  'routing',
  'require_alias',
  'if_seq_no',
  'if_primary_term',
  'version',
  'version_type',
  'retry_on_conflict',
];

function checkQueryParameters(
  request: RecordedRequest,
  allowed: readonly string[],
  problems: Problems,
) {
  for (const name of Object.keys(request.query)) {
    if (!allowed.includes(name))
      problems.push(`query parameter ${name} is not documented for this API`);
  }
}

function ndjsonLines(request: RecordedRequest, problems: Problems): unknown[] {
  if (!request.body.endsWith('\n')) problems.push('an NDJSON body must end with a newline');
  return request.body
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

/**
 * The ways the request departs from OpenSearch's documented shapes; empty
 * when it follows them. An endpoint this checker does not know is a problem
 * too, so a new kind of request cannot pass unchecked.
 */
export function documentedShapeProblems(request: RecordedRequest): Problems {
  const problems: Problems = [];
  const { method, path } = request;
  const json = () => (request.body === '' ? undefined : JSON.parse(request.body));
  const segments = path.split('/').filter((segment) => segment !== '');
  const endpoint = segments.find((segment) => segment.startsWith('_')) ?? '';

  if ((method === 'HEAD' || method === 'GET') && (endpoint === '' || endpoint === '_mapping')) {
    if (request.body !== '') problems.push(`${method} ${path} takes no body`);
  } else if (method === 'PUT' && endpoint === '') {
    const body = json();
    if (onlyKeys(body, ['settings', 'mappings', 'aliases'], 'create index', problems)) {
      if (
        body.mappings !== undefined &&
        onlyKeys(body.mappings, MAPPINGS_KEYS, 'mappings', problems)
      )
        checkProperties(body.mappings.properties, problems);
      if (body.settings?.index?.knn !== undefined && typeof body.settings.index.knn !== 'boolean')
        problems.push('settings.index.knn must be a boolean');
    }
  } else if ((method === 'PUT' || method === 'POST') && endpoint === '_mapping') {
    // The page lists PUT; the JavaScript client sends POST, which the REST
    // handler OpenSearch inherited from Elasticsearch 7.10 registers too.
    const body = json();
    if (onlyKeys(body, MAPPINGS_KEYS, 'put mapping', problems))
      checkProperties(body.properties, problems);
  } else if ((method === 'POST' || method === 'GET') && endpoint === '_search') {
    checkQueryParameters(request, SEARCH_QUERY_PARAMETERS, problems);
    checkSearchBody(json(), 'search', problems);
  } else if (method === 'POST' && endpoint === '_msearch') {
    checkQueryParameters(
      request,
      ['max_concurrent_searches', 'typed_keys', 'rest_total_hits_as_int'],
      problems,
    );
    const lines = ndjsonLines(request, problems);
    if (lines.length % 2 !== 0)
      problems.push('multi-search lines must come in metadata/search pairs');
    for (let index = 0; index + 1 < lines.length; index += 2) {
      onlyKeys(lines[index], MSEARCH_METADATA, `msearch[${index / 2}] metadata`, problems);
      checkSearchBody(lines[index + 1], `msearch[${index / 2}]`, problems);
    }
  } else if (method === 'POST' && endpoint === '_bulk') {
    checkQueryParameters(
      request,
      ['refresh', 'routing', 'timeout', 'pipeline', 'require_alias', 'wait_for_active_shards'],
      problems,
    );
    if (
      request.query.refresh !== undefined &&
      !['true', 'false', 'wait_for'].includes(request.query.refresh)
    )
      problems.push(`bulk refresh=${request.query.refresh} is not true, false or wait_for`);
    const lines = ndjsonLines(request, problems);
    for (let index = 0; index < lines.length; index += 1) {
      const line = lines[index];
      const [action, metadata] = isObject(line) ? (Object.entries(line)[0] ?? []) : [];
      if (
        !isObject(line) ||
        Object.keys(line).length !== 1 ||
        !BULK_ACTIONS.includes(action ?? '')
      ) {
        problems.push(`bulk line ${index} must be one action of ${BULK_ACTIONS.join(', ')}`);
        continue;
      }
      onlyKeys(metadata, BULK_METADATA, `bulk line ${index}.${action}`, problems);
      if (action !== 'delete') index += 1; // the document (or update) that follows
    }
  } else if ((method === 'POST' || method === 'GET') && endpoint === '_count') {
    checkQueryParameters(request, SEARCH_QUERY_PARAMETERS, problems);
    const body = json();
    if (onlyKeys(body, ['query'], 'count', problems))
      checkQuery(body.query, 'count.query', problems);
  } else if (method === 'POST' && endpoint === '_delete_by_query') {
    checkQueryParameters(
      request,
      [
        'routing',
        'refresh',
        'conflicts',
        'allow_no_indices',
        'ignore_unavailable',
        'expand_wildcards',
        'slices',
        'wait_for_completion',
        'max_docs',
        'scroll_size',
        'timeout',
      ],
      problems,
    );
    if (request.query.refresh !== undefined && !['true', 'false'].includes(request.query.refresh))
      problems.push(`delete by query refresh=${request.query.refresh}: only true or false`);
    if (
      request.query.conflicts !== undefined &&
      !['abort', 'proceed'].includes(request.query.conflicts)
    )
      problems.push(`conflicts=${request.query.conflicts} is not abort or proceed`);
    const body = json();
    if (onlyKeys(body, ['query', 'max_docs'], 'delete by query', problems))
      checkQuery(body.query, 'delete_by_query.query', problems);
  } else {
    problems.push(`${method} ${path}: an endpoint this checker does not know`);
  }
  return problems;
}

/** Fails the test for any request the stand-in received that departs from the documented shapes. */
export function expectDocumentedRequests(requests: readonly RecordedRequest[]): void {
  const departures = requests
    .map((request) => ({
      request: `${request.method} ${request.path}`,
      problems: documentedShapeProblems(request),
    }))
    .filter((checked) => checked.problems.length > 0);
  expect(departures).toEqual([]);
}
