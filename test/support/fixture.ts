import { startTestServer, type Fields, type TestServer } from './http.js';

export interface Fixture {
  t: TestServer;
  admin: string;
  apiKey: string;
  member: string;
  memberId: string;
  otherAdmin: string;
  /** A POI add with sensible defaults, as the client's administrator unless told otherwise. */
  addPoi(fields?: Fields, token?: string): Promise<Record<string, unknown>>;
}

/** A listener with two client applications, an administrator and a member token of the first. */
export async function poiFixture(...args: Parameters<typeof startTestServer>): Promise<Fixture> {
  const t = await startTestServer(...args);
  const a = t.core.clients.create({ name: 'Alpha' });
  const b = t.core.clients.create({ name: 'Beta' });
  const session = await t.core.members.register(a.client_id, { username: 'fielduser1', pwd: 'secret1', email: 'field@example.com' });
  const addPoi = async (fields: Fields = {}, token: string = a.admin_token) => {
    const r = await t.get('/1/pois/add.json', { oauth_token: token, lat: 40.4169, lng: -3.7035, name: 'Puerta del Sol', categories: 7, ...fields });
    if (r.status !== 200) throw new Error(`add failed: ${JSON.stringify(r.body)}`);
    return r.json;
  };
  return {
    t,
    admin: a.admin_token,
    apiKey: a.client_id,
    member: session.token,
    memberId: session.member.id,
    otherAdmin: b.admin_token,
    addPoi,
  };
}
