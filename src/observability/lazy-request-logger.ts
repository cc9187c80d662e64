import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString } from 'pino';

type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogArgs = Parameters<FastifyBaseLogger['info']>;

function hasOptions(options: ChildLoggerOptions): boolean {
  for (const _ in options) return true;
  return false;
}

/**
 * A request's logger that becomes pino's child logger (with the request id) only when
 * something is logged at a level the server writes. Fastify makes a child per request;
 * at the production levels (`info` writes one line per request, `warn` none) most of them
 * would never write, and pino's child serialises its bindings when it is made.
 */
class LazyRequestLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): LevelWithSilentOrString {
    // Made only for options without a level (lazyChildLogger): the parent's until a child exists.
    return this.#child?.level ?? this.parent.level;
  }

  set level(level: LevelWithSilentOrString) {
    this.#logger().level = level;
  }

  #logger(): FastifyBaseLogger {
    // Without options pino takes its short path (no per-child copy of serialisers and formatters).
    this.#child ??= hasOptions(this.options) ? this.parent.child(this.bindings, this.options) : this.parent.child(this.bindings);
    return this.#child;
  }

  /** Whether a line at `level` would be written (the parent decides until the child exists). */
  #writes(level: LogLevel): boolean {
    const decider = (this.#child ?? this.parent) as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };
    return typeof decider.isLevelEnabled === 'function' ? decider.isLevelEnabled(level) : true;
  }

  fatal(...args: LogArgs): void {
    if (this.#writes('fatal')) this.#logger().fatal(...args);
  }

  error(...args: LogArgs): void {
    if (this.#writes('error')) this.#logger().error(...args);
  }

  warn(...args: LogArgs): void {
    if (this.#writes('warn')) this.#logger().warn(...args);
  }

  info(...args: LogArgs): void {
    if (this.#writes('info')) this.#logger().info(...args);
  }

  debug(...args: LogArgs): void {
    if (this.#writes('debug')) this.#logger().debug(...args);
  }

  trace(...args: LogArgs): void {
    if (this.#writes('trace')) this.#logger().trace(...args);
  }

  silent(): void {
    // Writes nothing, like pino's.
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger().child(bindings, options);
  }

  /** Whether a line at `level` would be written. */
  isLevelEnabled(level: string): boolean {
    return this.#writes(level as LogLevel);
  }
}

/**
 * Fastify's `childLoggerFactory`: a route with its own log level gets its child at once
 * (its level differs from the parent's), every other request a {@link LazyRequestLogger}.
 */
export const lazyChildLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) =>
  options.level === undefined ? new LazyRequestLogger(logger, bindings, options) : logger.child(bindings, options);
