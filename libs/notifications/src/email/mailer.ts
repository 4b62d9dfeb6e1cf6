import { Injectable } from '@nestjs/common';
import { createTransport, type NodemailerError, type SMTPSentMessageInfo, type SMTPTransportOptions, type Transporter } from 'nodemailer';
import { InjectSettings, type Settings, type SmtpSettings } from '@app/config';

/** One mail: every address in `to` sees the others, so send one per recipient when they must not. */
export interface OutgoingMail {
  to: string[];
  subject: string;
  text: string;
  html: string;
}

/** Which recipients the server took; a send that none survived throws instead. */
export interface MailReceipt {
  accepted: string[];
  rejected: string[];
}

/**
 * A mail that did not go out. The message is safe to log and to store (the audit's
 * `error_message`): it names the server and what failed, never a credential or the server's own
 * words, which may quote what was sent.
 */
export class MailDeliveryError extends Error {
  override readonly name = 'MailDeliveryError';

  constructor(
    message: string,
    /** nodemailer's code (ECONNECTION, EAUTH, ...), or ENOTCONFIGURED. */
    readonly code: string,
    /** The server refused for good (a 5xx reply): sending the same mail again gets the same answer. */
    readonly permanent: boolean,
    readonly responseCode?: number,
  ) {
    super(message);
  }
}

/**
 * Sends mail through the configured SMTP server, one connection per send. No pool: mail here is
 * rare and sent by one worker, and pooled connections idle between sends until the server drops
 * them, which surfaces as failed sends. Bounded by the settings' timeouts, so a dead server fails
 * a send within seconds instead of holding the worker.
 */
@Injectable()
export class Mailer {
  private readonly transport?: Transporter<SMTPSentMessageInfo, SMTPTransportOptions>;
  private readonly server: string;

  constructor(@InjectSettings() { mail }: Pick<Settings, 'mail'>) {
    this.server = mail.smtp ? `${mail.smtp.host}:${mail.smtp.port}` : 'no SMTP server';
    if (mail.smtp && mail.sender) this.transport = createTransport(transportOptions(mail.smtp), { from: mail.sender });
  }

  /** Whether SMTP and a sender are configured; without them every send throws. */
  get configured(): boolean {
    return this.transport !== undefined;
  }

  async send(mail: OutgoingMail): Promise<MailReceipt> {
    if (!this.transport) throw new MailDeliveryError('Mail not sent: no SMTP server is configured (PWP__MAIL__SMTP_ADDRESS).', 'ENOTCONFIGURED', true);
    try {
      const info = await this.transport.sendMail({ to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
      return { accepted: [...info.accepted], rejected: [...info.rejected] };
    } catch (error) {
      throw this.describe(error as NodemailerError);
    }
  }

  private describe(error: NodemailerError): MailDeliveryError {
    const code = error.code ?? 'EUNKNOWN';
    const reply = error.responseCode === undefined ? '' : `, SMTP ${error.responseCode}`;
    const message = `Mail not sent via ${this.server}: ${FAILURES[code] ?? 'the SMTP exchange failed'} (${code}${reply}).`;
    return new MailDeliveryError(message, code, error.permanent === true, error.responseCode);
  }
}

/** What each of nodemailer's failures means to an operator reading the log. */
const FAILURES: Record<string, string> = {
  ECONNECTION: 'the connection to the SMTP server failed',
  ESOCKET: 'cannot connect to the SMTP server',
  EDNS: 'the SMTP server name does not resolve',
  ETIMEDOUT: 'the SMTP server did not answer in time',
  ETLS: 'the TLS handshake with the SMTP server failed',
  EAUTH: 'the SMTP server refused the user name and password',
  ENOAUTH: 'the SMTP server wants a sign-in (PWP__MAIL__SMTP_USER_NAME, PWP__MAIL__SMTP_PASSWORD)',
  EENVELOPE: 'the SMTP server refused the sender or every recipient',
  EMESSAGE: 'the SMTP server refused the message',
  EPROTOCOL: 'the SMTP server gave an answer that is not SMTP',
};

function transportOptions(smtp: SmtpSettings): SMTPTransportOptions {
  return {
    host: smtp.host,
    port: smtp.port,
    name: smtp.heloName,
    secure: smtp.tls === 'implicit',
    requireTLS: smtp.tls === 'starttls-required',
    ignoreTLS: smtp.tls === 'none',
    tls: { rejectUnauthorized: smtp.verifyCertificate },
    auth: smtp.auth && { user: smtp.auth.user, pass: smtp.auth.password, method: smtp.auth.method?.toUpperCase().replace('_', '-') },
    connectionTimeout: smtp.openTimeoutMs,
    greetingTimeout: smtp.openTimeoutMs,
    dnsTimeout: smtp.openTimeoutMs,
    socketTimeout: smtp.readTimeoutMs,
    // nodemailer logs nothing unless asked; kept explicit, since its debug log would show the AUTH exchange.
    logger: false,
    debug: false,
  };
}
