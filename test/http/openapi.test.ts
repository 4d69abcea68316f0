import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf } from '../../shared/api/openapi.js';
import { API, type ApiName } from '../../shared/api/operations.js';
import { ERRORS, type ErrorCode, type ErrorDeclaration } from '../../shared/errors.js';
import { poiFixture, type Fixture } from '../support/fixture.js';
import type { Answer } from '../support/http.js';

/**
 * The OpenAPI document the listener serves (generated from the operations' one declaration):
 * valid OpenAPI 3.1, and true of what the service really answers, operation by operation.
 */
let f: Fixture;
let document: Record<string, unknown>;
const ajv = new Ajv2020({ strict: false, allErrors: true });

beforeAll(async () => {
  f = await poiFixture();
  const r = await fetch(`${f.t.base}/1/openapi.json`);
  expect(r.status).toBe(200);
  document = (await r.json()) as Record<string, unknown>;
  ajv.addSchema(document, 'openapi.json');
});
afterAll(() => f.t.close());

type Op = { responses: Record<string, { content: { 'application/json': { schema: { $ref: string } } } }> };
const operation = (path: string, verb: string): Op => (document['paths'] as Record<string, Record<string, Op>>)[path]![verb]!;

/** The schema an operation declares for an answer of this status. */
function schemaFor(name: ApiName, verb: string, status: number): ValidateFunction {
  const op = operation(`/${API[name].path}.json`, verb);
  const declared = op.responses[String(status)];
  if (!declared) throw new Error(`${name} ${verb} declares no ${status} answer`);
  const pointer = declared.content['application/json'].schema.$ref.slice(1);
  return ajv.getSchema(`openapi.json#${pointer}`)!;
}

function conforms(name: ApiName, verb: string, answer: Answer): void {
  const check = schemaFor(name, verb, answer.status);
  const ok = check(answer.body);
  expect({ name, verb, status: answer.status, errors: ok ? null : check.errors }).toEqual({ name, verb, status: answer.status, errors: null });
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document describing every operation of the table, with every verb', async () => {
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    const paths = document['paths'] as Record<string, Record<string, unknown>>;
    for (const [name, op] of Object.entries(API)) {
      for (const verb of op.verbs) expect(paths[`/${op.path}.json`]?.[verb.toLowerCase()], `${name} ${verb}`).toBeDefined();
    }
  });

  it('declares, for every operation, each refusal it can answer under its HTTP status', () => {
    const declared = (name: ApiName, verb: string) => operation(`/${API[name].path}.json`, verb).responses;
    expect(Object.keys(declared('pois.update', 'get'))).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '405', '503']));
    expect(Object.keys(declared('users.login', 'post'))).toEqual(expect.arrayContaining(['200', '400', '401', '429']));
    expect(Object.keys(declared('pois.get', 'get'))).not.toContain('409');
    const catalog: Readonly<Record<ErrorCode, ErrorDeclaration>> = ERRORS;
    for (const code of Object.keys(ERRORS) as ErrorCode[]) {
      if (catalog[code].when === undefined) continue; // the console's, not the API's
      const anywhere = Object.values(document['paths'] as Record<string, Record<string, Op & { responses: Record<string, { description: string }> }>>)
        .flatMap((p) => Object.values(p))
        .some((op) => op.responses[String(ERRORS[code].status)]?.description.includes(ERRORS[code].description));
      expect({ code, anywhere }).toEqual({ code, anywhere: true });
    }
    // And none the catalog says only the console answers.
    for (const [name, op] of Object.entries(API)) expect({ name, console: errorsOf(op).filter((code) => catalog[code].when === undefined) }).toEqual({ name, console: [] });
  });

  it("is true of every operation's real replies, and of its refusals", async () => {
    const t = f.t;
    const seen = new Set<string>();
    const check = async (name: ApiName, verb: string, answer: Promise<Answer>): Promise<Answer> => {
      const a = await answer;
      conforms(name, verb, a);
      seen.add(name);
      return a;
    };
    const poi = (await check('pois.add', 'get', t.get('/1/pois/add.json', { oauth_token: f.member, lat: 40.4, lng: -3.7, name: 'Described', categories: '6,7' }))).json;
    const id = poi['id'] as number;
    await check('pois.add', 'post', t.post('/1/pois/add.json', { oauth_token: f.admin, lat: 41, lng: 2, name: 'Posted', categories: '1', desc: 'x', elevation: '1.0E2' }));
    await check('pois.update', 'get', t.get('/1/pois/update.json', { oauth_token: f.admin, poi: id, desc: 'now', phone: '' }));
    await check('pois.get', 'get', t.get('/1/pois/get.json', { oauth_token: f.member, poi: id }));
    await check('pois.near', 'get', t.get('/1/pois/get_near.json', { oauth_token: f.member, lat: 40.4, lng: -3.7, radius: 5000 }));
    await check('pois.where', 'get', t.get('/1/pois/get_where.json', { oauth_token: f.member, q: 'desc' }));
    await check('categories.list', 'get', t.get('/1/pois/categories.json', { oauth_token: f.member, include_system_categories: 'true' }));
    const cat = (await check('categories.add', 'get', t.get('/1/pois/categories/add.json', { oauth_token: f.admin, desc: 'Tapas' }))).json;
    await check('categories.update', 'get', t.get('/1/pois/categories/update.json', { oauth_token: f.admin, category: cat['Id'] as number, desc: 'Tapas bars' }));
    await check('categories.delete', 'get', t.get('/1/pois/categories/delete.json', { oauth_token: f.admin, category: cat['Id'] as number }));
    await check('warnings.add', 'get', t.get('/1/pois/warnings/add.json', { oauth_token: f.member, poi: id, type: 'WRONG_INFO', name: 'Better', categories: '6' }));
    await check('warnings.add', 'get', t.get('/1/pois/warnings/add.json', { oauth_token: f.member, poi: id, type: 'CLOSED' }));
    await check('warnings.list', 'get', t.get('/1/pois/warnings.json', { oauth_token: f.member, poi: String(id) }));
    await check('warnings.delete', 'get', t.get('/1/pois/warnings/delete.json', { oauth_token: f.admin, poi: String(id), type: 'CLOSED' }));
    await check('pois.history', 'get', t.get('/1/pois/history.json', { oauth_token: f.admin, poi: id }));
    const user = (await check('users.register', 'post', t.post('/1/users.json', { access_token: f.admin, username: 'described01', pwd: 'secret1', email: 'd@example.com', birthday: '1990-01-02T03:04:05.000+0200' }))).json;
    const login = (await check('users.login', 'post', t.post('/1/users/login.json', { api_key: f.apiKey, username: 'described01', pwd: 'secret1', expiresin: 60 }, 'multipart'))).json;
    const token = (login['accreditation'] as { access_token: string }).access_token;
    await check('users.list', 'get', t.get('/1/users.json', { access_token: f.admin, count: 5 }));
    await check('users.show', 'get', t.get('/1/users/me/show.json', { access_token: token }));
    await check('users.show', 'post', t.post(`/1/users/${String(user['id'])}/show.json`, { access_token: f.member }));
    await check('users.update', 'put', t.call('PUT', `/1/users/${String(user['id'])}.json`, { access_token: token, gender: 'female' }));
    await check('users.logout', 'delete', t.call('DELETE', '/1/users/login.json', { access_token: token }));
    await check('users.delete', 'delete', t.call('DELETE', `/1/users/${String(user['id'])}.json`, { access_token: f.admin }));
    await check('pois.delete', 'get', t.get('/1/pois/delete.json', { oauth_token: f.admin, poi: id }));
    expect([...seen].sort()).toEqual(Object.keys(API).sort());
    // And the schemas bite: a POI reply without a field the old SDK requires does not conform.
    const { registertime: _dropped, ...withoutRegistertime } = poi;
    expect(schemaFor('pois.get', 'get', 200)(withoutRegistertime)).toBe(false);
    expect(schemaFor('pois.get', 'get', 200)({ ...poi, categories: [1] })).toBe(false);

    // Refusals: the Error schema, under the status each operation declares.
    await check('pois.get', 'get', t.get('/1/pois/get.json', { oauth_token: f.member, poi: id }));
    await check('pois.update', 'get', t.get('/1/pois/update.json', { oauth_token: f.member, poi: id, name: 'x' }));
    await check('pois.near', 'get', t.get('/1/pois/get_near.json', { oauth_token: f.member, lat: 'north', lng: 0, radius: 1 }));
    await check('users.login', 'post', t.post('/1/users/login.json', { api_key: f.apiKey, username: 'nobody00', pwd: 'wrong' }));
    await check('pois.add', 'get', t.get('/1/pois/add.json', { lat: 1 }));
    // The 403s an operation any token may call answers by who the token is.
    expect((await check('users.logout', 'delete', t.call('DELETE', '/1/users/login.json', { access_token: f.admin }))).status).toBe(403);
    const other = (await t.post('/1/users.json', { access_token: f.admin, username: 'described02', pwd: 'secret2', email: 'e@example.com' })).json;
    expect((await check('users.update', 'post', t.post(`/1/users/${String(other['id'])}.json`, { access_token: f.member, gender: 'male' }))).status).toBe(403);
  });
});
