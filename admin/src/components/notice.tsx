import type { ComponentChildren } from 'preact';

/** A message the screen reader announces: errors assertively, the rest politely. */
export function Notice(props: { kind: 'error' | 'info' | 'success'; children: ComponentChildren }) {
  if (!props.children) return null;
  return (
    <p class={`notice notice-${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      {props.children}
    </p>
  );
}
