import type { UserRole } from '../records.js';

export const roles: readonly { value: UserRole; label: string }[] = [
  { value: 'guest', label: 'Guest' },
  { value: 'staff', label: 'Staff' },
  { value: 'admin', label: 'Admin' },
];

/** A role picker. `label` names it for assistive technology when no visible label does. */
export function RoleSelect(props: { id: string; value: UserRole; onChange: (role: UserRole) => void; label?: string; disabled?: boolean }) {
  return (
    <select id={props.id} value={props.value} disabled={props.disabled} {...(props.label ? { 'aria-label': props.label } : {})} onChange={(e) => props.onChange(e.currentTarget.value as UserRole)}>
      {roles.map((role) => (
        <option key={role.value} value={role.value}>
          {role.label}
        </option>
      ))}
    </select>
  );
}
