import { useId, useState, type FormEvent } from 'react';
import { FormProblems } from '../ui/ErrorSummary';
import { Field, FormError } from '../ui/Field';
import { localInputToIso, optionalNumber } from '../ui/format';
import { IssuedToken } from './IssuedToken';
import { useLogIn, useLogOutToken, useRegisterMember } from './mutations';

type GenderChoice = '' | 'male' | 'female';
const EXPIRES_HINT = 'Seconds. Leave empty for a token that never expires.';

const REGISTER = { username: 'Username', pwd: 'Password', email: 'E-mail', gender: 'Gender', birthday: 'Birthday', expiresin: 'Expires in' } as const;
const LOGIN = { username: 'Username or e-mail', pwd: 'Password', expiresin: 'Expires in' } as const;

const EMPTY_REGISTER = { username: '', pwd: '', email: '', gender: '' as GenderChoice, birthday: '', expiresin: '' };

/** Registers a member with the console's authority and shows the token it issued. */
export function RegisterForm({ clientId }: { clientId: string }) {
  const register = useRegisterMember();
  const [form, setForm] = useState(EMPTY_REGISTER);
  const genderId = useId();
  const errors = register.errors;
  const set = (patch: Partial<typeof EMPTY_REGISTER>) => setForm((f) => ({ ...f, ...patch }));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (register.isPending) return;
    const birthday = localInputToIso(form.birthday);
    const expiresin = optionalNumber(form.expiresin);
    const fields = {
      username: form.username,
      pwd: form.pwd,
      email: form.email,
      ...(form.gender ? { gender: form.gender } : {}),
      ...(birthday !== undefined ? { birthday } : {}),
      ...(expiresin !== undefined ? { expiresin } : {}),
    };
    register.submit({ clientId, fields }, { onSuccess: () => setForm(EMPTY_REGISTER) });
  };

  const genderError = errors.field('gender');
  return (
    <form aria-label="Register a member" className="panel-form" onSubmit={submit} noValidate>
      <h3>Register a member</h3>
      <FormProblems errors={errors} labels={REGISTER} />
      <FormError error={errors.form} />
      <Field label={REGISTER.username} name="username" value={form.username} onChange={(username) => set({ username })} error={errors.field('username')} required hint="6 to 40 letters and digits." />
      <Field label={REGISTER.pwd} name="pwd" type="password" value={form.pwd} onChange={(pwd) => set({ pwd })} error={errors.field('pwd')} required hint="6 to 40 characters." />
      <Field label={REGISTER.email} name="email" type="email" value={form.email} onChange={(email) => set({ email })} error={errors.field('email')} required />
      <div className={genderError ? 'field field-error' : 'field'}>
        <label htmlFor={genderId}>{REGISTER.gender}</label>
        <div className="field-row">
          <select
            id={genderId}
            name="gender"
            value={form.gender}
            aria-invalid={genderError ? true : undefined}
            aria-describedby={genderError ? `${genderId}-error` : undefined}
            onChange={(e) => set({ gender: e.target.value === 'male' || e.target.value === 'female' ? e.target.value : '' })}
          >
            <option value="">not specified</option>
            <option value="male">Male</option>
            <option value="female">Female</option>
          </select>
        </div>
        {genderError && (
          <div className="error" id={`${genderId}-error`} role="alert">
            {genderError}
          </div>
        )}
      </div>
      <Field label={REGISTER.birthday} name="birthday" type="datetime-local" value={form.birthday} onChange={(birthday) => set({ birthday })} error={errors.field('birthday')} hint="Optional. Sent with this computer's time-zone offset." />
      <Field label={REGISTER.expiresin} name="expiresin" type="number" step="any" value={form.expiresin} onChange={(expiresin) => set({ expiresin })} error={errors.field('expiresin')} hint={EXPIRES_HINT} />
      <div className="actions">
        <button type="submit">Register</button>
      </div>
      {register.isSuccess && <IssuedToken reply={register.data} testId="issued-token" title="Registered" />}
    </form>
  );
}

/** Logs a member in by username or e-mail, as a client application would, and shows the token. */
export function LoginForm({ clientId }: { clientId: string }) {
  const login = useLogIn();
  const [username, setUsername] = useState('');
  const [pwd, setPwd] = useState('');
  const [expires, setExpires] = useState('');
  const errors = login.errors;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (login.isPending) return;
    const expiresin = optionalNumber(expires);
    login.submit({ clientId, fields: { username, pwd, ...(expiresin !== undefined ? { expiresin } : {}) } }, { onSuccess: () => setPwd('') });
  };

  return (
    <form aria-label="Log in" className="panel-form" onSubmit={submit} noValidate>
      <h3>Log in</h3>
      <FormProblems errors={errors} labels={LOGIN} />
      <FormError error={errors.form} />
      <Field label={LOGIN.username} name="username" value={username} onChange={setUsername} error={errors.field('username')} required />
      <Field label={LOGIN.pwd} name="pwd" type="password" value={pwd} onChange={setPwd} error={errors.field('pwd')} required />
      <Field label={LOGIN.expiresin} name="expiresin" type="number" step="any" value={expires} onChange={setExpires} error={errors.field('expiresin')} hint={EXPIRES_HINT} />
      <div className="actions">
        <button type="submit">Log in</button>
      </div>
      {login.isSuccess && <IssuedToken reply={login.data} testId="login-token" title="Logged in" />}
    </form>
  );
}

/** Revokes one member token. */
export function LogoutForm() {
  const logout = useLogOutToken();
  const [token, setToken] = useState('');
  const errors = logout.errors;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (logout.isPending) return;
    logout.submit({ token: token.trim() }, { onSuccess: () => setToken('') });
  };

  return (
    <form aria-label="Log out a token" className="panel-form" onSubmit={submit} noValidate>
      <h3>Log out a token</h3>
      <FormError error={errors.form} />
      <Field label="Token" name="token" value={token} onChange={setToken} error={errors.field('token')} required />
      <div className="actions">
        <button type="submit">Log out token</button>
      </div>
      <p role="status" className="done">
        {logout.isSuccess ? 'Token revoked' : ''}
      </p>
    </form>
  );
}
