import { analyze, ENGLISH_STOPWORDS, words } from '../../domain/retrieval/text-analysis';
import type { Embedder } from '../../ports/embedder.port';

/**
 * How text becomes features. The defaults were chosen on the first 150
 * SciFact queries only (docs/quality.md); any other scheme gets another
 * embedder id, so an index built with one is never searched with the other.
 */
export interface HashingScheme {
  /** Weight of analyzed words (stopwords removed, Porter-stemmed). */
  readonly unigramWeight: number;
  /** Weight of pairs of consecutive analyzed words. */
  readonly bigramWeight: number;
  /**
   * Weight of character n-grams of each lowercased word other than a
   * stopword (with `<` and `>` marking its ends); 0 to leave them out. They
   * let word forms the stemmer keeps apart (`tumour`, `tumor`) and gene or
   * drug names with variants share features.
   */
  readonly charNgramWeight: number;
  /** Lengths of those character n-grams. */
  readonly charNgramSizes: readonly number[];
}

export const DEFAULT_HASHING_SCHEME: HashingScheme = {
  unigramWeight: 1,
  bigramWeight: 0,
  charNgramWeight: 0.7,
  charNgramSizes: [3],
};

export interface OfflineHashEmbedderOptions {
  /** @default 384 */
  readonly dimensions?: number;
  /** @default DEFAULT_HASHING_SCHEME */
  readonly scheme?: Partial<HashingScheme>;
}

/** Bumped whenever the features or their hashing change: vectors of two versions are not comparable. */
const VERSION = 'offline-hash-v1';

/**
 * The offline default embedder (issue 3: "a deterministic embedder", no
 * network): feature hashing. Each feature of a text (by default its analyzed
 * words and the character 3-grams of its words; pairs of consecutive words
 * can be added) is hashed to one of `dimensions` coordinates with a hashed
 * sign, so collisions cancel out on average instead of piling up; a feature
 * seen `tf` times adds `weight · (1 + ln tf)` (sublinear, as in TF-IDF
 * weighting schemes), and the vector is scaled to unit length. Texts sharing
 * words get a positive cosine, unrelated texts one near zero. It knows no
 * synonyms and no word's rarity: it is a lexical embedder, the no-network
 * baseline a provider's model replaces (docs/quality.md measures it).
 *
 * @example
 * const embedder = new OfflineHashEmbedder();
 * embedder.id; // 'offline-hash-v1/384'
 * const [vector] = await embedder.embed(['What is the refund policy?']);
 */
export class OfflineHashEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  readonly #scheme: HashingScheme;

  constructor(options: OfflineHashEmbedderOptions = {}) {
    const dimensions = options.dimensions ?? 384;
    if (!Number.isSafeInteger(dimensions) || dimensions < 1) {
      throw new RangeError(`dimensions must be a positive integer, got ${dimensions}`);
    }
    this.dimensions = dimensions;
    this.#scheme = { ...DEFAULT_HASHING_SCHEME, ...options.scheme };
    const custom = JSON.stringify(this.#scheme) !== JSON.stringify(DEFAULT_HASHING_SCHEME);
    // A non-default scheme is named by a hash of its settings, so two schemes never share an id.
    this.id = custom
      ? `${VERSION}/${dimensions}/${hash32(JSON.stringify(this.#scheme), 0).toString(16)}`
      : `${VERSION}/${dimensions}`;
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    return texts.map((text) => Array.from(this.embedOne(text)));
  }

  /**
   * The unit-length vector of one text, synchronously. All zeros for a text
   * without words: its cosine with anything is 0.
   */
  embedOne(text: string): Float64Array {
    const { unigramWeight, bigramWeight, charNgramWeight, charNgramSizes } = this.#scheme;
    const features = new Map<string, number>();
    const add = (feature: string, weight: number) => {
      features.set(feature, (features.get(feature) ?? 0) + weight);
    };
    const terms = analyze(text);
    if (unigramWeight > 0) for (const term of terms) add(`w:${term}`, 1);
    if (bigramWeight > 0) {
      for (let i = 1; i < terms.length; i += 1) add(`b:${terms[i - 1]} ${terms[i]}`, 1);
    }
    if (charNgramWeight > 0) {
      for (const word of words(text)) {
        if (ENGLISH_STOPWORDS.has(word)) continue;
        const marked = `<${word}>`;
        for (const size of charNgramSizes) {
          for (let i = 0; i + size <= marked.length; i += 1)
            add(`c:${marked.slice(i, i + size)}`, 1);
        }
      }
    }

    const vector = new Float64Array(this.dimensions);
    for (const [feature, tf] of features) {
      const kind = feature[0];
      const weight = kind === 'w' ? unigramWeight : kind === 'b' ? bigramWeight : charNgramWeight;
      const hash = hash32(feature, 0x9747b28c);
      // The top bit picks the sign, the rest the coordinate: independent enough for hashing.
      const sign = hash & 0x80000000 ? -1 : 1;
      const coordinate = (hash & 0x7fffffff) % this.dimensions;
      vector[coordinate] = (vector[coordinate] ?? 0) + sign * weight * (1 + Math.log(tf));
    }
    let norm = 0;
    for (const value of vector) norm += value * value;
    if (norm > 0) {
      const scale = 1 / Math.sqrt(norm);
      for (let i = 0; i < vector.length; i += 1) vector[i] = (vector[i] ?? 0) * scale;
    }
    return vector;
  }
}

/**
 * A 32-bit string hash: FNV-1a over UTF-16 code units, then the MurmurHash3
 * finalizer so every output bit depends on every input bit (FNV alone leaves
 * the low bits, which pick the coordinate, poorly mixed).
 */
function hash32(text: string, seed: number): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}
