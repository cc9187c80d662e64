import { useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import type { User, UserRole } from '../records.js';
import { Notice } from './notice.js';
import { RoleSelect } from './role-select.js';

/** The New user form: e-mail, names and role. An administrative write (TOTP step-up). */
export function CreateUser(props: { onCreated: (user: User) => void; onCancel: () => void }) {
  const [email, setEmail] = useState('');
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const [role, setRole] = useState<UserRole>('staff');
  const [error, setError] = useState('');
  async function create(event: Event) {
    event.preventDefault();
    setError('');
    const names = { ...(firstName.trim() ? { first_name: firstName.trim() } : {}), ...(lastName.trim() ? { last_name: lastName.trim() } : {}) };
    try {
      const { body } = await api.call<User>('POST', '/v1/users', { body: { email: email.trim(), role, ...names } });
      props.onCreated(body);
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  return (
    <form onSubmit={(e) => void create(e)}>
      <Notice kind="error">{error}</Notice>
      <label for="user-email">E-mail</label>
      <input id="user-email" type="email" required maxLength={254} autoComplete="off" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
      <label for="user-first-name">First name</label>
      <input id="user-first-name" maxLength={120} value={firstName} onInput={(e) => setFirstName(e.currentTarget.value)} />
      <label for="user-last-name">Last name</label>
      <input id="user-last-name" maxLength={120} value={lastName} onInput={(e) => setLastName(e.currentTarget.value)} />
      <label for="user-role">Role</label>
      <RoleSelect id="user-role" value={role} onChange={setRole} />
      <p class="help">Staff run bookings and products; admins also manage clients, webhooks, users and the audit trail, and sign in here with TOTP.</p>
      <div class="row">
        <button type="submit">Create</button>
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
