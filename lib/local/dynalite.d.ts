/** dynalite ships no types; this is the part of its API the local runtime uses. */
declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    /** LevelDB directory; in memory when omitted. */
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
  }

  function dynalite(options?: DynaliteOptions): Server;
  export = dynalite;
}
