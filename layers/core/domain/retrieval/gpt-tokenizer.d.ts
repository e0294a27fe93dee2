/**
 * `gpt-tokenizer/encoding/cl100k_base` resolves through the package's exports
 * map (for esbuild, Node and jest alike); TypeScript's node10 resolution does
 * not read exports maps, so the types are taken from the CommonJS build's path.
 */
declare module 'gpt-tokenizer/encoding/cl100k_base' {
  export * from 'gpt-tokenizer/cjs/encoding/cl100k_base';
}
