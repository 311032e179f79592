/** A stderr progress bar (cli-progress) with rate and ETA; by input bytes for files, by documents for stdin. */
import type { Writable } from "node:stream";
import cliProgress from "cli-progress";

export interface Progress {
  update: (documents: number, bytes: number) => void;
  clear: () => void;
  stop: () => void;
}

export function createProgress(stream: Writable, totalBytes: number | undefined): Progress {
  const known = totalBytes !== undefined && totalBytes > 0;
  const bar = new cliProgress.SingleBar(
    {
      stream: stream as NodeJS.WritableStream,
      format: known
        ? "{bar} {percentage}% | {docs} docs | {rate} docs/s | ETA {eta_formatted}"
        : "{docs} docs | {rate} docs/s | {duration_formatted}",
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 50,
      fps: 5,
    },
    cliProgress.Presets.shades_classic,
  );
  const started = performance.now();
  bar.start(known ? totalBytes : 0, 0, { docs: 0, rate: 0 });
  let last = 0;
  let latest = { documents: 0, bytes: 0 };
  const draw = (now: number): void => {
    const rate = Math.round(latest.documents / Math.max(0.001, (now - started) / 1000));
    bar.update(known ? Math.min(latest.bytes, totalBytes) : latest.documents, { docs: latest.documents, rate });
  };
  return {
    update(documents, bytes) {
      latest = { documents, bytes };
      const now = performance.now();
      if (now - last < 100) return;
      last = now;
      draw(now);
    },
    clear() {
      stream.write("\r\x1b[K");
    },
    stop() {
      // Show the final count, not the last throttled one.
      draw(performance.now());
      bar.stop();
    },
  };
}
