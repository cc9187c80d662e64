import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type { Config } from '../config/config.js';

export type Channel = 'email' | 'sms';

/** The sign-in message in the user's language (English when there is none for it). The code is its only 6-digit number. */
const templates: Readonly<Record<string, { subject: string; body: (code: string, minutes: number) => string }>> = {
  en: { subject: 'Your sign-in code', body: (code, minutes) => `Your sign-in code is ${code}. It expires in ${minutes} minutes. If you did not ask for it, ignore this message.` },
  de: {
    subject: 'Ihr Anmeldecode',
    body: (code, minutes) => `Ihr Anmeldecode lautet ${code}. Er läuft in ${minutes} Minuten ab. Wenn Sie ihn nicht angefordert haben, ignorieren Sie diese Nachricht.`,
  },
  fr: { subject: 'Votre code de connexion', body: (code, minutes) => `Votre code de connexion est ${code}. Il expire dans ${minutes} minutes. Si vous ne l’avez pas demandé, ignorez ce message.` },
};

export function signInMessage(locale: string, code: string, minutes: number): { subject: string; body: string } {
  const template = templates[locale.toLowerCase().split('-')[0] ?? 'en'] ?? templates.en;
  if (!template) throw new Error('no English template');
  return { subject: template.subject, body: template.body(code, minutes) };
}

/**
 * Delivers sign-in messages: e-mail over SMTP with nodemailer (`SMTP_URL`), or, without it,
 * as `.eml` files under `DATA_DIR/outbox` (a fresh install can sign in without a mail
 * server); SMS as JSON `{ "to", "body" }` POSTed to `SMS_WEBHOOK_URL`, the adapter in front
 * of a paid SMS gateway.
 */
export class MessageSender {
  private readonly mail: Transporter;
  private readonly outbox: string | undefined;

  constructor(private readonly config: Pick<Config, 'smtpUrl' | 'smtpFrom' | 'smsWebhookUrl' | 'dataDir'>) {
    if (config.smtpUrl) {
      this.mail = nodemailer.createTransport(config.smtpUrl);
    } else {
      this.outbox = join(config.dataDir, 'outbox');
      this.mail = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    }
  }

  /** Whether e-mails go to files rather than a mail server (warned about at start-up). */
  get writesFiles(): boolean {
    return this.outbox !== undefined;
  }

  get smsAvailable(): boolean {
    return this.config.smsWebhookUrl !== undefined;
  }

  async send(channel: Channel, to: string, message: { subject: string; body: string }): Promise<void> {
    if (channel === 'sms') return this.sendSms(to, message.body);
    const info = (await this.mail.sendMail({ from: this.config.smtpFrom, to, subject: message.subject, text: message.body })) as { message?: Buffer; messageId?: string };
    if (this.outbox && info.message) {
      mkdirSync(this.outbox, { recursive: true, mode: 0o700 });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${(info.messageId ?? String(Math.random())).replace(/[^A-Za-z0-9]/g, '').slice(0, 24)}.eml`;
      writeFileSync(join(this.outbox, name), info.message, { mode: 0o600 });
    }
  }

  private async sendSms(to: string, body: string): Promise<void> {
    if (!this.config.smsWebhookUrl) throw new Error('SMS_WEBHOOK_URL is not set');
    const response = await fetch(this.config.smsWebhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to, body }),
      redirect: 'error',
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new Error(`SMS gateway answered ${response.status}`);
  }
}
