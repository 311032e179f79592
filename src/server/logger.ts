import { pino, type Logger } from "pino";

/** Paths pino blanks out wherever they appear in a log record. */
export const REDACT_PATHS = [
  "password",
  "apiKey",
  "caCert",
  "*.password",
  "*.apiKey",
  "*.caCert",
  "*.*.password",
  "*.*.apiKey",
  "req.headers.authorization",
  "headers.authorization",
];

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = { level, base: { service: "neardup" }, redact: { paths: REDACT_PATHS, censor: "<redacted>" } };
  return destination ? pino(options, destination as never) : pino(options);
}
