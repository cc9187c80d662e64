import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { Notice } from '../components/notice.js';

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** A JSON value as nested definition lists (the posture is a tree of facts). */
function Facts(props: { value: Json }) {
  const { value } = props;
  if (value === null || typeof value !== 'object') return <span>{typeof value === 'boolean' ? (value ? 'yes' : 'no') : String(value)}</span>;
  if (Array.isArray(value))
    return (
      <ul class="plain">
        {value.map((item, i) => (
          <li key={i}>
            <Facts value={item} />
          </li>
        ))}
      </ul>
    );
  return (
    <dl>
      {Object.entries(value).map(([key, inner]) => (
        <div key={key}>
          <dt>{key.replaceAll('_', ' ')}</dt>
          <dd>
            <Facts value={inner} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** The security posture of this deployment (`GET /v1/security/json`). */
export function Security() {
  const [posture, setPosture] = useState<Json>();
  const [error, setError] = useState('');
  useEffect(() => {
    api.get<Json>('/v1/security/json').then(
      ({ body }) => setPosture(body),
      (failure: unknown) => setError(describeError(failure)),
    );
  }, []);
  return (
    <>
      <h1>Security posture</h1>
      <Notice kind="error">{error}</Notice>
      {posture !== undefined && <Facts value={posture} />}
    </>
  );
}
