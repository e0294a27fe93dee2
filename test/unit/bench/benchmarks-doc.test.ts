import { benchCommand } from '../../bench/benchmarks-doc';

describe('Function: benchCommand', () => {
  it.each([
    [{ quick: false, only: false }, 'npm run bench'],
    [{ quick: true, only: false }, 'npm run bench -- --quick'],
    [{ quick: false, only: true }, 'npm run bench -- --only console'],
    [{ quick: true, only: true }, 'npm run bench -- --quick --only console'],
  ])('names the command that reproduces a section run with %o', (options, command) => {
    expect(benchCommand('console', options)).toBe(command);
  });
});
