import { passageUnits } from '../../../../../layers/core/adapters/ai/extractive/passage-units';
import { normalizeWhitespace } from '../../../../../layers/core/domain/retrieval/verbatim';

describe('Function: passageUnits', () => {
  it('quotes a sentence together with the code block it introduces', () => {
    const passage =
      'Install it with:\n\nnpm install foo --save\nfoo init\n\nThen restart the server.';

    const units = passageUnits(passage);

    expect(units[0]).toMatchObject({
      kind: 'lead',
      parts: ['Install it with:', 'npm install foo --save', 'foo init'],
      codeLines: 2,
    });
    expect(units.map((unit) => unit.kind)).toEqual(['lead', 'code', 'sentence']);
  });

  it('quotes every code block a blank line split off the one the sentence introduces', () => {
    const passage =
      'To use 10 seconds for freeze and 60 for the rest:\n\n[global]\ntimeout = 60\n\n[freeze]\ntimeout = 10\n\nEach file overrides the one before.';

    const [lead] = passageUnits(passage);

    expect(lead).toMatchObject({
      kind: 'lead',
      parts: [
        'To use 10 seconds for freeze and 60 for the rest:',
        '[global]',
        'timeout = 60',
        '[freeze]',
        'timeout = 10',
      ],
      codeLines: 4,
    });
  });

  it('quotes a sentence ending with a colon together with the list items after it', () => {
    const passage =
      'pip has 3 levels:\n\n`global`: system-wide\n\n`user`: per-user\n\nThat is all.';

    const [lead] = passageUnits(passage);

    expect(lead).toMatchObject({
      kind: 'lead',
      parts: ['pip has 3 levels:', '`global`: system-wide', '`user`: per-user'],
    });
  });

  it('keeps list items and table rows with a number, drops a lone two-word label', () => {
    const units = passageUnits('Refund policy\n\ntimeout 30\n\nThe window is long.');

    expect(units.map((unit) => unit.parts[0])).toEqual(['timeout 30', 'The window is long.']);
  });

  it('reads a block of wrapped sentences as prose, not code', () => {
    const passage =
      'The use of these schemes is discouraged.\nThey lack authentication, and HTTP is\ninsecure without any TLS encryption at all.';

    const units = passageUnits(passage);

    expect(units.map((unit) => unit.kind)).toEqual(['sentence', 'sentence']);
    expect(units[1]?.parts[0]).toBe(
      'They lack authentication, and HTTP is insecure without any TLS encryption at all.',
    );
  });

  it('reads text wrapped at a fixed width, its lines ending mid-sentence, as prose', () => {
    const passage =
      'Read this first:\n\nThe requirements file format is closely tied to a number of internal details of\npip and its command line options. The basic format is relatively stable\nand portable but the full syntax is only intended for consumption by pip.';

    const units = passageUnits(passage);

    expect(units.every((unit) => unit.codeLines === 0)).toBe(true);
    expect(units.map((unit) => unit.kind)).toEqual(['sentence', 'sentence', 'sentence']);
  });

  it('quotes a caption line together with the example under it', () => {
    const passage = 'Undo commits permanently\n\n$ git commit ...\n$ git reset --hard HEAD~3';

    const [caption] = passageUnits(passage);

    expect(caption?.kind).toBe('lead');
    expect(caption?.parts).toEqual([
      'Undo commits permanently',
      '$ git commit ...',
      '$ git reset --hard HEAD~3',
    ]);
  });

  it('keeps a commented code block as code', () => {
    const passage =
      'It is possible to refer to other files:\n\n# It is possible to refer to other requirement files or constraints files.\n-r other-requirements.txt\n-c constraints.txt';

    const [lead] = passageUnits(passage);

    expect(lead?.kind).toBe('lead');
    expect(lead?.codeLines).toBe(3);
  });

  it('leaves out questions and sentences holding bracketed numbers', () => {
    const units = passageUnits(
      'How do I reset it? Hold the button [3]. Hold the button for ten seconds.',
    );

    expect(units.map((unit) => unit.parts[0])).toEqual(['Hold the button for ten seconds.']);
  });

  it('quotes only what the passage holds, after whitespace normalization', () => {
    const passage = 'Use it:\n\n  a = 1\n  b = 2\n\nA list:\n\nfirst item here\n\nsecond item here';
    const whole = normalizeWhitespace(passage);

    for (const unit of passageUnits(passage)) {
      expect(whole).toContain(normalizeWhitespace(unit.parts.join('\n')));
    }
  });
});
