import { OfflineHashEmbedder } from '../../../../layers/core/adapters/ai/offline-embedder';

const cosine = (a: readonly number[], b: readonly number[]) =>
  a.reduce((sum, value, i) => sum + value * (b[i] ?? 0), 0);
const norm = (a: readonly number[]) => Math.sqrt(cosine(a, a));

describe('Class: OfflineHashEmbedder', () => {
  it('creates a 384-dimension embedder with defaults', () => {
    const embedder = new OfflineHashEmbedder();

    expect(embedder.id).toBe('offline-hash-v1/384');
    expect(embedder.dimensions).toBe(384);
  });

  it('names another size or scheme differently, so their indexes never mix', () => {
    expect(new OfflineHashEmbedder({ dimensions: 128 }).id).toBe('offline-hash-v1/128');
    const custom = new OfflineHashEmbedder({ scheme: { bigramWeight: 1 } }).id;
    expect(custom).toMatch(/^offline-hash-v1\/384\/[0-9a-f]+$/);
    expect(new OfflineHashEmbedder({ scheme: { bigramWeight: 0.9 } }).id).not.toBe(custom);
  });

  it('refuses a size that is not a positive integer', () => {
    expect(() => new OfflineHashEmbedder({ dimensions: 0 })).toThrow(RangeError);
    expect(() => new OfflineHashEmbedder({ dimensions: 1.5 })).toThrow(RangeError);
  });

  it('embeds each text into one unit-length vector, in order, the same every time', async () => {
    const embedder = new OfflineHashEmbedder();

    const vectors = await embedder.embed(['refund policy', 'shipping times']);
    const again = await new OfflineHashEmbedder().embed(['refund policy', 'shipping times']);

    expect(vectors).toHaveLength(2);
    expect(vectors[0]).toHaveLength(384);
    for (const vector of vectors) expect(norm(vector)).toBeCloseTo(1, 10);
    expect(again).toEqual(vectors);
  });

  it('places texts sharing words closer than unrelated texts', async () => {
    const [query = [], related = [], unrelated = []] = await new OfflineHashEmbedder().embed([
      'How long do refunds take?',
      'Refunds take five business days to reach your account.',
      'Our office is closed on public holidays.',
    ]);

    expect(cosine(query, related)).toBeGreaterThan(cosine(query, unrelated) + 0.2);
  });

  it('brings word forms together through character n-grams', async () => {
    const [tumour = [], tumor = [], cell = []] = await new OfflineHashEmbedder().embed([
      'tumour',
      'tumor',
      'cell',
    ]);

    expect(cosine(tumour, tumor)).toBeGreaterThan(cosine(tumour, cell));
  });

  it('gives a text without words the zero vector', async () => {
    const [vector = []] = await new OfflineHashEmbedder().embed(['   ']);

    expect(vector.every((value) => value === 0)).toBe(true);
  });
});
