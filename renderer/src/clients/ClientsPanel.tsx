import '../ui/panels.css';
import { useId, useState, type FormEvent } from 'react';
import type { ClientSummary } from '../../../shared/wire';
import { Checkbox } from '../ui/Checkbox';
import { CopyButton } from '../ui/CopyButton';
import { useConfirm } from '../ui/Confirm';
import { Field, FormError } from '../ui/Field';
import { readableDate } from '../ui/format';
import { revealToken, useRevealedToken } from './adminTokenStore';
import { useCreateClient, useRotateAdminToken, useSetImplicitFlow } from './mutations';
import { useClients } from './queries';

interface ClientsPanelProps {
  selected: string | undefined;
  onSelect: (clientId: string) => void;
}

/** Client applications: create, select, Implicit Flow, administrator tokens. */
export function ClientsPanel({ selected, onSelect }: ClientsPanelProps) {
  const titleId = useId();
  const clients = useClients();
  return (
    <section className="panel admin-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Client applications</h2>
      <AdminToken selected={selected} onSelect={onSelect} />
      <CreateClient />
      {clients.isPending && <p>Loading client applications…</p>}
      {clients.isError && <FormError error={clients.error.message} />}
      {clients.isSuccess &&
        (clients.data.length === 0 ? (
          <p className="note">No client application yet: create one above.</p>
        ) : (
          <ul className="items" aria-label="Client applications">
            {clients.data.map((c) => (
              <ClientItem key={c.client_id} client={c} selected={c.client_id === selected} onSelect={onSelect} />
            ))}
          </ul>
        ))}
    </section>
  );
}

/**
 * The token just issued. After a creation, the new client is selected when the operator is done
 * with the token: selecting a client takes the app to another panel, which would hide it unseen.
 */
function AdminToken({ selected, onSelect }: { selected: string | undefined; onSelect: (clientId: string) => void }) {
  const revealed = useRevealedToken();
  if (!revealed) return null;
  // The first client is shown as soon as it exists: there is nothing left to select then.
  const toSelect = revealed.reason === 'created' && revealed.clientId !== selected;
  const done = () => {
    revealToken(undefined);
    if (revealed.reason === 'created') onSelect(revealed.clientId);
  };
  return (
    <div className="secret" data-testid="admin-token" role="region" aria-label="Administrator token">
      <p>
        {revealed.reason === 'created' ? 'Administrator token of the new client' : 'New administrator token of'} <strong>{revealed.clientName}</strong>:
      </p>
      <p>
        <code className="secret-text">{revealed.token}</code>
      </p>
      <p className="note">
        It is shown only now, because only its hash is stored: copy it and keep it safe. If it is lost, rotate it.
        {revealed.reason === 'rotated' ? ' The previous token no longer works.' : toSelect ? ' Once it is saved, press Done to show this client.' : ' Once it is saved, press Done.'}
      </p>
      <div className="actions">
        <CopyButton label="Copy token" value={revealed.token} />
        <button type="button" onClick={done}>
          {toSelect ? 'Done, show this client' : revealed.reason === 'created' ? 'Done' : 'Hide token'}
        </button>
      </div>
    </div>
  );
}

function CreateClient() {
  const create = useCreateClient();
  const [name, setName] = useState('');
  const [implicitFlow, setImplicitFlow] = useState(false);
  const errors = create.errors;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (create.isPending) return;
    create.submit(
      { name, implicitFlow },
      {
        onSuccess: (client) => {
          revealToken({ clientId: client.client_id, clientName: client.name, token: client.admin_token, reason: 'created' });
          setName('');
          setImplicitFlow(false);
        },
      },
    );
  };

  return (
    <form aria-label="Create a client application" className="panel-form" onSubmit={submit} noValidate>
      <h3>Create a client application</h3>
      <FormError error={errors.form} />
      <Field label="Name" name="name" value={name} onChange={setName} error={errors.field('name')} required />
      <Checkbox label="Implicit Flow" name="implicitFlow" checked={implicitFlow} onChange={setImplicitFlow} />
      <p className="hint">With Implicit Flow, anyone holding the api_key may register members.</p>
      <div className="actions">
        <button type="submit">Create client</button>
      </div>
    </form>
  );
}

function ClientItem({ client, selected, onSelect }: { client: ClientSummary; selected: boolean; onSelect: (id: string) => void }) {
  const nameId = useId();
  const setFlow = useSetImplicitFlow();
  const rotate = useRotateAdminToken();
  const confirm = useConfirm();
  const formError = setFlow.errors.form ?? rotate.errors.form;
  // While the change is on its way (until the list is read again), show what was asked for.
  const [asked, setAsked] = useState<boolean | undefined>();
  const implicitFlow = asked ?? client.implicit_flow;

  const onFlow = (enabled: boolean) => {
    if (setFlow.isPending) return;
    setAsked(enabled);
    setFlow.mutate({ clientId: client.client_id, enabled }, { onSettled: () => setAsked(undefined) });
  };

  const onRotate = async () => {
    if (rotate.isPending) return;
    const question = { title: 'Rotate the administrator token', text: `Rotate the administrator token of ${client.name}? The old token stops working at once.`, yes: 'Rotate token', no: 'Keep the current token', destructive: true };
    if (!(await confirm(question))) return;
    rotate.mutate(
      { clientId: client.client_id },
      { onSuccess: (r) => revealToken({ clientId: r.client_id, clientName: client.name, token: r.admin_token, reason: 'rotated' }) },
    );
  };

  return (
    <li className={selected ? 'item item-selected' : 'item'}>
      <div className="item-main">
        <strong id={nameId}>{client.name}</strong>
        {selected && <span className="tag">current</span>}
        <dl className="facts">
          <dt>api_key</dt>
          <dd>
            <code>{client.client_id}</code>
          </dd>
          <dt>Created</dt>
          <dd>
            <time dateTime={client.created}>{readableDate(client.created)}</time>
          </dd>
        </dl>
        <FormError error={formError} />
        <Checkbox
          label="Implicit Flow"
          checked={implicitFlow}
          describedBy={nameId}
          onChange={onFlow}
        />
        <div className="actions">
          <CopyButton label="Copy api_key" value={client.client_id} describedBy={nameId} />
          <button type="button" aria-pressed={selected} aria-describedby={nameId} onClick={() => onSelect(client.client_id)}>
            Select
          </button>
          <button type="button" aria-describedby={nameId} onClick={() => void onRotate()}>
            Rotate administrator token
          </button>
        </div>
      </div>
    </li>
  );
}
