import { encode } from 'uqr';

/** A QR code drawn as SVG rectangles (no image, no inline script: fits the console's CSP). */
export function QrCode(props: { text: string; label: string }) {
  const { data, size } = encode(props.text, { ecc: 'M', border: 2 });
  const cells: preact.JSX.Element[] = [];
  data.forEach((row, y) => row.forEach((dark, x) => dark && cells.push(<rect key={`${x}-${y}`} x={x} y={y} width="1" height="1" />)));
  return (
    <svg class="qr" viewBox={`0 0 ${size} ${size}`} role="img" aria-label={props.label} shape-rendering="crispEdges">
      <rect width={size} height={size} fill="#fff" />
      <g fill="#000">{cells}</g>
    </svg>
  );
}
