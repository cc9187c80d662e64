import { useEffect, useState } from 'preact/hooks';
import { api, describeError, etagOf } from '../api.js';
import { CreateUser } from '../components/create-user.js';
import { Dialog } from '../components/dialog.js';
import { Notice } from '../components/notice.js';
import { UserRow } from '../components/user-row.js';
import type { ListPage, User, UserRole } from '../records.js';
import { session } from '../session.js';
import { DataTable } from '../components/data-table.js';

/** Users: the tenant's users; create staff or admins, change roles, disable or enable, reset a lost TOTP. */
export function Users() {
  const [page, setPage] = useState<ListPage<User>>({ items: [], total: 0 });
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState('');
  const [message, setMessage] = useState('');
  const self = session.get()?.claims.sub;

  async function load() {
    try {
      setPage((await api.get<ListPage<User>>('/v1/users?sort=created_at&per_page=100')).body);
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  useEffect(() => void load(), []);

  /** A PATCH with the record's current ETag; the row list is read again afterwards. */
  async function change(user: User, body: Partial<Pick<User, 'role' | 'status'>>, done: string) {
    setError('');
    setMessage('');
    const path = `/v1/users/${encodeURIComponent(user._id)}`;
    try {
      await api.call('PATCH', path, { body, ifMatch: await etagOf(path) });
      setMessage(done);
      await load();
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  /** `POST /v1/users/{id}/totp/reset`: the user signs in with a one-time code alone and enrols again. */
  async function resetTotp(user: User) {
    setError('');
    setMessage('');
    try {
      await api.call('POST', `/v1/users/${encodeURIComponent(user._id)}/totp/reset`);
      setMessage(`TOTP of ${user.email} reset: they sign in with a one-time code and enrol again.`);
      await load();
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  const changeRole = (user: User, role: UserRole) => void change(user, { role }, `${user.email} is now ${role}.`);
  const changeStatus = (user: User, status: User['status']) => void change(user, { status }, `${user.email} ${status === 'active' ? 'enabled' : 'disabled'}.`);

  return (
    <>
      <div class="page-head">
        <h1>Users</h1>
        <button type="button" onClick={() => (setMessage(''), setCreating(true))}>
          New user
        </button>
      </div>
      <Notice kind="error">{error}</Notice>
      <Notice kind="success">{message}</Notice>
      <p class="help">
        {page.total} users{page.total > page.items.length ? `, the first ${page.items.length} shown` : ''}. Changes need your authenticator sign-in (TOTP), which this console session has.
      </p>
      <DataTable caption="Users of this tenant" headings={['E-mail', 'Name', 'Role', 'TOTP', 'Status', { hidden: 'Actions' }]}>
        {page.items.map((user) => (
          <UserRow key={`${user._id}-${user.role}`} user={user} self={user._id === self} onRole={changeRole} onStatus={changeStatus} onResetTotp={(u) => void resetTotp(u)} />
        ))}
      </DataTable>
      <Dialog title="New user" open={creating} onClose={() => setCreating(false)}>
        <CreateUser onCancel={() => setCreating(false)} onCreated={(user) => (setCreating(false), setMessage(`${user.email} created.`), void load())} />
      </Dialog>
    </>
  );
}
