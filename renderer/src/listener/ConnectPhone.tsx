import { create } from 'qrcode';
import { useId, useMemo, useState } from 'react';
import type { ListenerStatus } from '../../../shared/contract';
import { isLoopbackHost } from '../../../shared/loopback';
import { useCategories } from '../categories/queries';
import { useClients } from '../clients/queries';
import { CopyButton } from '../ui/CopyButton';


/** The page for connecting a phone (main/http/onboarding.ts) on each plain-HTTP address: a phone opens it before it trusts HTTPS. */
export function phonePages(status: ListenerStatus): Array<{ url: string; loopback: boolean }> {
  return status.addresses
    .filter((address) => address.startsWith('http:'))
    .map((address) => {
      const url = new URL(status.pagePath ?? '/', address);
      return { url: url.href, loopback: isLoopbackHost(url.hostname) };
    });
}

/** A QR code drawn as one SVG path of its dark modules, named by the text it holds. */
function QrCode({ text }: { text: string }) {
  const path = useMemo(() => {
    const { modules } = create(text, { errorCorrectionLevel: 'M' });
    let d = '';
    for (let row = 0; row < modules.size; row++) {
      for (let col = 0; col < modules.size; col++) if (modules.get(row, col)) d += `M${col + 4} ${row + 4}h1v1h-1z`;
    }
    return { d, size: modules.size + 8 };
  }, [text]);
  return (
    <svg className="qr" role="img" aria-label={`QR code of ${text}`} viewBox={`0 0 ${path.size} ${path.size}`} shapeRendering="crispEdges">
      <rect width={path.size} height={path.size} fill="#fff" />
      <path d={path.d} fill="#000" />
    </svg>
  );
}

/** The listener's page on each address, as a code to scan with a phone's camera and as text to copy. */
export function PhonePages({ status }: { status: ListenerStatus }) {
  const pages = phonePages(status);
  if (pages.length === 0) return null;
  const reachable = pages.some((p) => !p.loopback);
  return (
    <>
      <h3>Open it on a phone</h3>
      <p className="note">
        {reachable
          ? "Scan a code with the phone's camera, or type its address: the page gives the API's addresses and the certificate to trust."
          : 'These addresses reach this computer only. To reach the listener from a phone, choose Local network below and apply.'}
      </p>
      <ul className="phone-pages" aria-label="Pages for a phone">
        {pages.map((page) => (
          <PhonePage key={page.url} url={page.url} loopback={page.loopback} />
        ))}
      </ul>
      {status.mdnsName && (status.mdnsAnnounced === false ? <NotAnnounced name={status.mdnsName} /> : <LocalName name={status.mdnsName} />)}
    </>
  );
}

/** The name announced on the local network (docs/devices.md#a-stable-name): the same whatever address DHCP gives. */
function LocalName({ name }: { name: string }) {
  const nameId = useId();
  return (
    <p>
      By name, whatever this computer's address: <code id={nameId}>{name}</code> (on devices that resolve <code>.local</code> names: iPhones, computers,
      recent Android versions). <CopyButton label="Copy name" value={name} describedBy={nameId} />
    </p>
  );
}

function NotAnnounced({ name }: { name: string }) {
  return (
    <p className="note">
      Its name <code>{name}</code> is announced on no network interface of this computer: the environment variable POI_MDNS_INTERFACES names none
      of them. Use an address above.
    </p>
  );
}

function PhonePage({ url, loopback }: { url: string; loopback: boolean }) {
  const urlId = useId();
  return (
    <li>
      {!loopback && <QrCode text={url} />}
      <div className="phone-page-text">
        <code id={urlId}>{url}</code>
        {loopback && <span className="note"> (this computer only)</span>}
        <CopyButton label="Copy address" value={url} describedBy={urlId} />
      </div>
    </li>
  );
}

/**
 * For the developer's own app: the selected client's api_key (masked until shown) and its
 * categories' ids, each with a Copy button. The client is the one the map shows.
 */
export function AppKeys({ clientId }: { clientId: string | undefined }) {
  const clients = useClients();
  const categories = useCategories(clientId);
  const [shown, setShown] = useState(false);
  const keyId = useId();
  const categoriesId = useId();
  const client = clients.data?.find((c) => c.client_id === clientId);
  const lines = (categories.data ?? []).map((c) => `${c.Id} ${c.Description}`).join('\n');
  return (
    <div className="panel-block app-keys">
      <h3>For your app</h3>
      {!client ? (
        <p className="note">No client application is selected: create or select one in Client applications, and its api_key shows here.</p>
      ) : (
        <>
          <p>
            Client application <strong>{client.name}</strong>, the one the map shows.
          </p>
          <p className="app-key">
            <span id={keyId}>
              api_key:{' '}
              {shown ? (
                <code className="secret-text">{client.client_id}</code>
              ) : (
                <>
                  <code aria-hidden="true">••••••••••••</code>
                  <span className="visually-hidden">hidden</span>
                </>
              )}
            </span>
          </p>
          <p className="note">
            The api_key names your app; it is not enough to read or add POIs. Those calls need a token: a member's, from{' '}
            <code>users/login.json</code> (or <code>users.json</code> to register one, with the api_key where the client allows Implicit Flow), or the
            client's administrator token, shown once when the client was made (Rotate token in Client applications shows a new one).
          </p>
          <div className="actions">
            <button type="button" aria-describedby={keyId} onClick={() => setShown((s) => !s)}>
              {shown ? 'Hide api_key' : 'Show api_key'}
            </button>
            <CopyButton label="Copy api_key" value={client.client_id} />
          </div>
          <h4 id={categoriesId}>Category ids</h4>
          {categories.isPending && <p className="note">Loading the categories…</p>}
          {categories.isError && <p className="form-error">Could not read the categories: {categories.error.message}</p>}
          {categories.isSuccess && (
            <>
              <pre className="category-ids">
                {lines}
              </pre>
              <div className="actions">
                <CopyButton label="Copy category ids" value={lines} describedBy={categoriesId} />
              </div>
            </>
          )}
        </>
      )}
    </div>
  );
}
