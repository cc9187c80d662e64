import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { SMTPServer } from 'smtp-server';
import { freePort } from './free-port.js';

/** Who waits on a receiver's list: called after each message it keeps. */
const arrivals = new WeakMap<readonly Received[], Set<() => void>>();

/** A receiver's list of messages, watched by {@link waitFor}. */
function messageLog(): Received[] {
  const messages: Received[] = [];
  arrivals.set(messages, new Set());
  return messages;
}

function keep(messages: Received[], message: Received): void {
  messages.push(message);
  for (const listener of arrivals.get(messages) ?? []) listener();
}

/** One message a receiver got. */
export interface Received {
  readonly to: string;
  readonly body: string;
}

/** An in-process SMTP server (smtp-server) that keeps every message it is given. */
export async function startSmtp(): Promise<{ url: string; messages: Received[]; close(): Promise<void> }> {
  const messages = messageLog();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      stream.on('end', () => {
        // The text after the headers (plain ASCII here: nodemailer sends it as 7bit).
        keep(messages, {
          to: session.envelope.rcptTo.map((r) => r.address).join(','),
          body: raw
            .split(/\r?\n\r?\n/)
            .slice(1)
            .join('\n\n'),
        });
        callback();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `smtp://127.0.0.1:${port}`, messages, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A local HTTP receiver standing in for an SMS gateway adapter: it records `{ to, body }` posts. */
export async function startSmsReceiver(): Promise<{ url: string; messages: Received[]; close(): Promise<void> }> {
  const messages = messageLog();
  const server: Server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    request.on('end', () => {
      const parsed = JSON.parse(raw) as { to: string; body: string };
      keep(messages, { to: parsed.to, body: parsed.body });
      response.writeHead(202).end();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}/sms`, messages, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The 6-digit code of a sign-in message (the only 6-digit number in it). */
export function codeIn(message: Received | undefined): string {
  const codes = message?.body.match(/\b\d{6}\b/g) ?? [];
  if (codes.length !== 1) throw new Error(`expected exactly one 6-digit number in ${message?.body ?? '(no message)'}`);
  return codes[0] as string;
}

/**
 * Resolves once a receiver's `list` has `count` messages (they go out after the answer).
 * No clock of its own: a message that never comes fails the test at its timeout.
 */
export function waitFor(list: readonly Received[], count: number): Promise<void> {
  const listeners = arrivals.get(list);
  if (!listeners) return Promise.reject(new Error('waitFor watches the messages of startSmtp or startSmsReceiver only'));
  if (list.length >= count) return Promise.resolve();
  return new Promise((resolve) => {
    const check = () => {
      if (list.length < count) return;
      listeners.delete(check);
      resolve();
    };
    listeners.add(check);
  });
}
