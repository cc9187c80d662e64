import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { SMTPServer } from 'smtp-server';
import { freePort } from './free-port.js';

/** One message a receiver got. */
export interface Received {
  readonly to: string;
  readonly body: string;
}

/** An in-process SMTP server (smtp-server) that keeps every message it is given. */
export async function startSmtp(): Promise<{ url: string; messages: Received[]; close(): Promise<void> }> {
  const messages: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      stream.on('end', () => {
        // The text after the headers (plain ASCII here: nodemailer sends it as 7bit).
        messages.push({
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
  const messages: Received[] = [];
  const server: Server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    request.on('end', () => {
      const parsed = JSON.parse(raw) as { to: string; body: string };
      messages.push({ to: parsed.to, body: parsed.body });
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

/** Waits until `list` has `count` entries (messages go out after the answer). */
export async function waitFor<T>(list: readonly T[], count: number, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (list.length < count) {
    if (Date.now() > until) throw new Error(`only ${list.length} of ${count} messages arrived`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
