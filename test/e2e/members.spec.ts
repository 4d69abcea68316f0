import { answerConfirm, basemapDrawn, consoleOp, expect, screenshotPath, test } from './fixtures.js';

test('register a member with every field, log in, revoke the token, delete the member', async ({ app: page }) => {
  await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Members' }).click();
  const register = page.getByRole('form', { name: 'Register a member' });
  await register.getByLabel('Username', { exact: true }).fill('fieldagent7');
  await register.getByLabel('Password', { exact: true }).fill('secret77');
  await register.getByLabel('E-mail', { exact: true }).fill('agent7@example.com');
  await register.getByLabel('Gender', { exact: true }).selectOption({ label: 'Female' });
  await register.getByLabel('Birthday', { exact: true }).fill('1990-05-06T07:08');
  await register.getByLabel('Expires in', { exact: true }).fill('3600');
  await register.getByRole('button', { name: 'Register' }).click();
  const issued = page.getByTestId('issued-token');
  await expect(issued).toContainText(/Token: [0-9a-f-]{36}/);
  // Shown as the page's other dates are (the page's locale), the exact moment kept in the markup.
  const expiry = issued.locator('time');
  await expect(expiry).toHaveAttribute('datetime', /^\d{4}-\d\d-\d\dT/);
  expect(await expiry.textContent()).toBe(new Date((await expiry.getAttribute('datetime'))!).toLocaleString('en-US'));
  const members = page.getByRole('list', { name: 'Members' });
  await expect(members).toContainText('fieldagent7');
  await expect(members).toContainText('agent7@example.com');

  // A taken username: the server's 409 shows next to Username.
  await register.getByLabel('Username', { exact: true }).fill('FieldAgent7');
  await register.getByLabel('Password', { exact: true }).fill('secret77');
  await register.getByLabel('E-mail', { exact: true }).fill('other@example.com');
  await register.getByRole('button', { name: 'Register' }).click();
  await expect(register.getByRole('alert')).toContainText('already exists');

  await basemapDrawn(page);
  await page.screenshot({ path: screenshotPath('members-panel') });

  const login = page.getByRole('form', { name: 'Log in' });
  await login.getByLabel('Username or e-mail', { exact: true }).fill('AGENT7@example.com');
  await login.getByLabel('Password', { exact: true }).fill('secret77');
  await login.getByLabel('Expires in', { exact: true }).fill('60');
  await login.getByRole('button', { name: 'Log in' }).click();
  const loginToken = page.getByTestId('login-token');
  await expect(loginToken).toContainText(/Token: [0-9a-f-]{36}/);
  await expect(loginToken.locator('time')).not.toHaveText(/T\d\d:/);
  const token = /Token: ([0-9a-f-]{36})/.exec((await loginToken.textContent()) ?? '')![1]!;

  // The token works on the service's API until it is logged out from the panel.
  const listener = await consoleOp<{ addresses: string[] }>(page, 'listener.configure', { enabled: true, port: 4799, scope: 'local' });
  const showMe = async () => (await fetch(`${listener.addresses[0]}users/me/show.json?access_token=${token}`)).status;
  expect(await showMe()).toBe(200);
  const logout = page.getByRole('form', { name: 'Log out a token' });
  await logout.getByLabel('Token', { exact: true }).fill(token);
  await logout.getByRole('button', { name: 'Log out token' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Token revoked' })).toBeVisible();
  expect(await showMe()).toBe(401);
  await consoleOp(page, 'listener.configure', { enabled: false, port: 4799, scope: 'local' });

  // Wrong password: a refusal, shown in the form.
  await login.getByLabel('Password', { exact: true }).fill('wrong-one');
  await login.getByRole('button', { name: 'Log in' }).click();
  await expect(login.getByRole('alert')).toContainText('unknown member or wrong password');

  await members.getByRole('button', { name: 'Delete member fieldagent7' }).click();
  await answerConfirm(page, 'Delete member', 'Their tokens stop working at once');
  await expect(page.getByRole('button', { name: 'Delete member fieldagent7' })).toHaveCount(0);
});

test('an empty registration reports every problem at once, in a summary that takes focus and leads to each field', async ({ app: page, info }) => {
  const before = await consoleOp<unknown[]>(page, 'members.list', { clientId: info.clientId, page: {} });
  await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Members' }).click();
  const register = page.getByRole('form', { name: 'Register a member' });
  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/console/api/members.register')) sent.push(r.url());
  });
  await register.getByRole('button', { name: 'Register' }).click();
  const summary = register.locator('.error-summary');
  await expect(summary).toBeFocused();
  await expect(summary.getByRole('heading')).toHaveText('There are 3 problems');
  await expect(summary.getByRole('link')).toHaveText([
    'Username: must be 6 to 40 letters (A-Z, a-z) and digits',
    'Password: must be 6 to 40 characters',
    'E-mail: must be a well-formed e-mail address',
  ]);
  await summary.getByRole('link', { name: /^E-mail/ }).click();
  await expect(register.getByLabel('E-mail', { exact: true })).toBeFocused();
  await expect(register.getByLabel('Username', { exact: true })).toHaveAttribute('aria-invalid', 'true');
  // Nothing was sent.
  expect(sent).toEqual([]);
  expect(await consoleOp<unknown[]>(page, 'members.list', { clientId: info.clientId, page: {} })).toEqual(before);
});
