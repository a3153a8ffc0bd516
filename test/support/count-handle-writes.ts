import type { Socket } from 'node:net';

/** Counts what reaches the socket's handle: one `_write` per chunk, or one `_writev` per batch. */
export function countHandleWrites(socket: Socket) {
  const counts = { write: 0, writev: 0, chunks: 0 };
  const internals = socket as unknown as {
    _write: (...args: unknown[]) => void;
    _writev: (chunks: unknown[], ...rest: unknown[]) => void;
  };
  const write = internals._write.bind(socket);
  const writev = internals._writev.bind(socket);
  internals._write = (...args) => {
    counts.write++;
    counts.chunks++;
    write(...args);
  };
  internals._writev = (chunks, ...rest) => {
    counts.writev++;
    counts.chunks += chunks.length;
    writev(chunks, ...rest);
  };
  return counts;
}
