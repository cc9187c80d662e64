import { useState } from 'preact/hooks';
import type { User, UserRole } from '../records.js';
import { RoleSelect } from './role-select.js';

/**
 * One user: role (choose, then Change role), Disable / Enable, and Reset TOTP for a user
 * with TOTP on (lost authenticator and recovery codes). The signed-in administrator's own
 * row offers none of them, so nobody locks themselves out by mistake.
 */
export function UserRow(props: { user: User; self: boolean; onRole: (user: User, role: UserRole) => void; onStatus: (user: User, status: User['status']) => void; onResetTotp: (user: User) => void }) {
  const { user } = props;
  const [role, setRole] = useState<UserRole>(user.role);
  const name = [user.first_name, user.last_name].filter(Boolean).join(' ');
  return (
    <tr>
      <th scope="row">
        {user.email}
        {props.self && ' (you)'}
      </th>
      <td>{name || '—'}</td>
      <td>
        <form class="inline" onSubmit={(e) => (e.preventDefault(), props.onRole(user, role))}>
          <RoleSelect id={`role-${user._id}`} label={`Role of ${user.email}`} value={role} disabled={props.self} onChange={setRole} />
          {!props.self && (
            <button type="submit" class="secondary" disabled={role === user.role}>
              Change role
            </button>
          )}
        </form>
      </td>
      <td>{user.totp_enabled ? 'Yes' : 'No'}</td>
      <td>{user.status === 'active' ? 'Active' : 'Disabled'}</td>
      <td class="actions">
        {!props.self && user.totp_enabled && (
          <button type="button" class="secondary" onClick={() => props.onResetTotp(user)}>
            Reset TOTP
          </button>
        )}
        {!props.self &&
          (user.status === 'active' ? (
            <button type="button" class="danger" onClick={() => props.onStatus(user, 'disabled')}>
              Disable
            </button>
          ) : (
            <button type="button" class="secondary" onClick={() => props.onStatus(user, 'active')}>
              Enable
            </button>
          ))}
      </td>
    </tr>
  );
}
