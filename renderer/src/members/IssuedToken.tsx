import type { UserReply } from '../../../shared/wire';

/** The token a register or login issued, with its expiry ("never" for a permanent one). */
export function IssuedToken({ reply, testId, title }: { reply: UserReply; testId: string; title: string }) {
  const { access_token: token, expirationtime: expires } = reply.accreditation;
  return (
    <div className="issued" data-testid={testId}>
      <p>
        {title} for <strong>{reply.name}</strong>:
      </p>
      <p>
        Token: <code className="secret-text">{token ?? '(none issued)'}</code>
      </p>
      <p>
        Expires: {expires === null ? 'never' : <time dateTime={expires}>{new Date(expires).toLocaleString()}</time>}
      </p>
    </div>
  );
}
