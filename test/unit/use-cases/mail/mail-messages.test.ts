import {
  escapeHtml,
  invitationMail,
  passwordResetMail,
} from '../../../../layers/core/use-cases/mail/mail-messages';

const LINK = 'https://console.example.com/password-reset#token=svcpwr_abc&x="1"';

describe('Mail messages (P264)', () => {
  describe('passwordResetMail', () => {
    it('names the organization and the address, and holds the link in both parts', () => {
      const mail = passwordResetMail({
        to: 'ada@example.com',
        organizationName: 'Acme',
        orgId: 'org_1',
        userId: 'usr_1',
        link: LINK,
        expiresAt: '2026-01-31T12:00:00.000Z',
      });

      expect(mail.subject).toBe('Reset your password for Acme');
      expect(mail.text).toContain('ada@example.com in Acme');
      expect(mail.text).toContain('before 2026-01-31 12:00 UTC (one hour)');
      expect(mail.text.split('\n')).toContain(LINK);
      expect(mail.html).toContain(`<a href="${escapeHtml(LINK)}">`);
      expect(mail.about).toEqual({
        kind: 'password_reset',
        orgId: 'org_1',
        userId: 'usr_1',
        link: LINK,
        expiresAt: '2026-01-31T12:00:00.000Z',
      });
    });
  });

  describe('invitationMail', () => {
    const invite = (organizationName: string, inviteeName: string) =>
      invitationMail({
        to: 'new@example.com',
        inviteeName,
        organizationName,
        orgId: 'org_1',
        userId: 'usr_2',
        link: 'https://console.example.com/invitations/accept#token=svcinv_x',
        expiresAt: '2026-02-07T09:30:00.000Z',
      });

    it('greets the person and names the organization in the subject and the words', () => {
      const mail = invite('Acme Research', 'Grace');

      expect(mail.subject).toBe('You are invited to Acme Research on the Agent Query Service');
      expect(mail.text).toMatch(/^Hello Grace,\n\nYou have been invited to join Acme Research/);
      expect(mail.text).toContain('before 2026-02-07 09:30 UTC');
      expect(mail.about.kind).toBe('invitation');
    });

    it('keeps names as text in the HTML: no markup, no script', () => {
      const mail = invite('<script>alert(1)</script>', 'Eve "the" <i>Great</i> & co');

      expect(mail.html).not.toMatch(/<script>|<i>/);
      expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(mail.html).toContain('Hello Eve &quot;the&quot; &lt;i&gt;Great&lt;/i&gt; &amp; co,');
    });

    it('puts no line break of a name in the subject (no header injection)', () => {
      const mail = invite('Acme\r\nBcc: victim@example.com', 'Mallory\nX-Header: 1');

      expect(mail.subject).toBe(
        'You are invited to Acme Bcc: victim@example.com on the Agent Query Service',
      );
      expect(mail.subject).not.toMatch(/[\r\n]/);
      expect(mail.text).toContain('Hello Mallory X-Header: 1,');
    });

    it('carries no secret but the link', () => {
      const mail = invite('Acme', 'Grace');
      const tokens = `${mail.text}\n${mail.html}`.match(/svc[a-z]*_[A-Za-z0-9_-]+/g) ?? [];

      expect(new Set(tokens)).toEqual(new Set(['svcinv_x']));
    });
  });
});
