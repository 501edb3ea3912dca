// A closed output pipe (`ctxproxy audit export | head`) ends the command quietly.
// Its own file, with no imports, because main.ts sets it up before anything heavy loads.

/** A reader that went away (`| head`) ends the command quietly instead of crashing on EPIPE. */
export function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream, exit: (code: number) => void): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') exit(0);
    else throw error;
  });
}
