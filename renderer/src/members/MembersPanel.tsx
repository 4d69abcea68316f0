import '../ui/panels.css';
import { useId } from 'react';
import type { UserReply } from '../../../shared/wire';
import { useConfirm } from '../ui/Confirm';
import { FormError } from '../ui/Field';
import { readableDate } from '../ui/format';
import { LoginForm, LogoutForm, RegisterForm } from './MemberForms';
import { useDeleteMember } from './mutations';
import { useMembers } from './queries';

const GENDER_NAMES: Record<UserReply['profile']['gender'], string> = { MALE: 'Male', FEMALE: 'Female', UNDEFINED: 'Not specified' };

/** The members of one client application: list, register, log in, log out a token. */
export function MembersPanel({ clientId }: { clientId: string }) {
  const titleId = useId();
  // Keyed by client: switching clients starts every form (and its issued token) afresh.
  return (
    <section className="panel admin-panel" aria-labelledby={titleId} key={clientId}>
      <h2 id={titleId}>Members</h2>
      <MemberList clientId={clientId} />
      <RegisterForm clientId={clientId} />
      <LoginForm clientId={clientId} />
      <LogoutForm />
    </section>
  );
}

function MemberList({ clientId }: { clientId: string }) {
  const members = useMembers(clientId);
  const remove = useDeleteMember();
  const confirm = useConfirm();

  const onDelete = async (member: UserReply) => {
    if (remove.isPending) return;
    const question = { title: 'Delete a member', text: `Delete member ${member.name}? Their tokens stop working at once.`, yes: 'Delete member', no: 'Keep', destructive: true };
    if (!(await confirm(question))) return;
    remove.mutate({ clientId, memberId: member.id });
  };

  if (members.isPending) return <p>Loading members…</p>;
  if (members.isError) return <FormError error={members.error.message} />;
  return (
    <div className="panel-block">
      <h3>
        Registered members <span className="count">({members.data.length})</span>
      </h3>
      <FormError error={remove.errors.form} />
      {members.data.length === 0 ? (
        <p className="note">No members yet. Register one below, or let a client application register them.</p>
      ) : (
        <ul className="items" aria-label="Members">
          {members.data.map((member) => (
            <li key={member.id} className="item">
              <div className="item-main">
                <strong>{member.name}</strong>
                <span>{member.email ?? ''}</span>
                <dl className="facts">
                  <dt>Gender</dt>
                  <dd>{GENDER_NAMES[member.profile.gender]}</dd>
                  <dt>Registered</dt>
                  <dd>
                    <time dateTime={member.register}>{readableDate(member.register)}</time>
                  </dd>
                  <dt>Id</dt>
                  <dd>
                    <code>{member.id}</code>
                  </dd>
                </dl>
              </div>
              <div className="item-actions">
                <button type="button" className="danger" aria-label={`Delete member ${member.name}`} onClick={() => void onDelete(member)}>
                  Delete
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
