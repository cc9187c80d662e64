/**
 * The brute-force model of tenant reach for ./reach-model.test.ts, written from
 * docs/tenancy.md and docs/end-users.md: a fixed hierarchy, the records in it, and who may
 * see or change what. It shares no code with the service.
 */
import { crud } from '../../support/harness.js';
import { overlapping, peakHeld } from '../booking/availability-model.js';

type Level = 'partner' | 'parent_tenant' | 'tenant';

/** The hierarchy: name, level and parent's name (`null`: right below system). */
export const tree: readonly (readonly [string, Level, string | null])[] = [
  ['P1', 'partner', null],
  ['P1.A', 'parent_tenant', 'P1'],
  ['P1.A.1', 'tenant', 'P1.A'],
  ['P1.A.2', 'tenant', 'P1.A'],
  ['P1.B', 'parent_tenant', 'P1'],
  ['P1.B.1', 'tenant', 'P1.B'],
  ['P1.3', 'tenant', 'P1'],
  ['P2', 'partner', null],
  ['P2.A', 'parent_tenant', 'P2'],
  ['P2.A.1', 'tenant', 'P2.A'],
  ['Q', 'parent_tenant', null],
  ['Q.1', 'tenant', 'Q'],
  ['T', 'tenant', null],
];

/** Outgoing webhooks: the node's name, the events subscribed to, and whether active. */
export const hooks: readonly (readonly [string, readonly string[], boolean])[] = [
  ['P1', ['bookings.created', 'bookings.updated', 'bookings.deleted'], true],
  ['P1.A', ['products.updated', 'products.deleted', 'bookings.created'], true],
  ['P1.A.1', ['products.created', 'products.updated', 'products.deleted', 'bookings.deleted'], true],
  ['P1.B', ['bookings.created', 'products.created'], false],
  ['Q', ['bookings.created', 'bookings.updated', 'products.updated'], true],
  ['T', ['products.created', 'bookings.deleted'], true],
  ['P2.A.1', ['bookings.updated'], true],
];

/** Three overlapping two-hour windows on one day: a booking in the middle one meets both others. */
export const windows = [10, 11, 12].map((hour) => ({ start: Date.UTC(2030, 0, 7, hour), end: Date.UTC(2030, 0, 7, hour + 2) }));
export const iso = (ms: number): string => new Date(ms).toISOString();
export const cities = ['Berlin', 'Paris'] as const;

export interface Node {
  readonly id: string;
  readonly name: string;
  /** The node's id and every ancestor's, system excluded. */
  readonly path: readonly string[];
}

export interface Product {
  readonly id: string;
  readonly node: string;
  readonly city: string;
  readonly total: number;
  readonly published: boolean;
  deleted: boolean;
}

export interface Booking {
  readonly id: string;
  readonly node: string;
  readonly product: string;
  readonly user: string | null;
  readonly start: number;
  readonly end: number;
  /** Always 1 here; named so the capacity helpers of the availability model apply. */
  readonly quantity: number;
  active: boolean;
  deleted: boolean;
}

type Kind = 'client' | 'staff' | 'guest';

export interface Caller {
  readonly name: string;
  readonly kind: Kind;
  readonly token: string;
  /** The caller's node; `null` for the system client. */
  readonly home: string | null;
  /** The user id of a staff or guest caller. */
  readonly user: string | null;
  readonly capabilities: ReadonlySet<string>;
}

export const clientCapabilities = [...crud('products'), ...crud('bookings'), 'tenants:list', 'tenants:read', 'audit-logs:list'];
/** The role capabilities of docs/end-users.md that these steps use. */
export const roleCapabilities: Record<'staff' | 'guest', readonly string[]> = {
  staff: [...crud('products'), ...crud('bookings')],
  guest: ['products:list', 'products:read', 'bookings:list', 'bookings:read', 'bookings:create'],
};

/** What the model expects of a request before its operation runs: a refusal, or the scope it acts in. */
type Access = { refused: number; code: string } | { scope: string | null };

/** A committed write: one audit entry and one outbox event `type` about `record`, owned by `node`. */
export interface Write {
  readonly type: `${'products' | 'bookings'}.${'created' | 'updated' | 'deleted'}`;
  readonly record: string;
  readonly node: string;
}

export class World {
  readonly nodes = new Map<string, Node>();
  readonly products: Product[] = [];
  readonly bookings: Booking[] = [];
  readonly writes: Write[] = [];

  wrote(type: Write['type'], record: { readonly id: string; readonly node: string }): void {
    this.writes.push({ type, record: record.id, node: record.node });
  }

  /** The access decision of docs/tenancy.md, in the pipeline's order: capability, then `X-Tenant-Id`. */
  access(caller: Caller, capability: string, header: string | undefined): Access {
    if (!caller.capabilities.has(capability)) return { refused: 403, code: 'insufficient_scope' };
    if (header === undefined) return { scope: caller.home };
    if (caller.kind !== 'client' || caller.home !== null) return { refused: 403, code: 'tenant_forbidden' };
    if (header === 'system') return { scope: null };
    return this.nodes.has(header) ? { scope: header } : { refused: 400, code: 'validation_failed' };
  }

  /** Whether a record owned by `node` lies in the subtree of `scope` (everything for system). */
  inScope(scope: string | null, node: string): boolean {
    return scope === null || (this.nodes.get(node)?.path.includes(scope) ?? false);
  }

  visibleBooking(caller: Caller, scope: string | null, booking: Booking): boolean {
    return !booking.deleted && this.inScope(scope, booking.node) && (caller.kind !== 'guest' || booking.user === caller.user);
  }

  visibleProduct(scope: string | null, product: Product): boolean {
    return !product.deleted && this.inScope(scope, product.node);
  }

  /** The bookings holding units of `product` (active and not deleted), every tenant's, `except` left out. */
  private holding(product: string, except?: Booking): Booking[] {
    return this.bookings.filter((b) => b.product === product && b.active && !b.deleted && b !== except);
  }

  /** The units of `product` held at the busiest instant of `[start, end)`. */
  peak(product: string, start: number, end: number, except?: Booking): number {
    return peakHeld(this.holding(product, except), start, end);
  }

  /** The ids a capacity refusal names: the bookings in the way that the caller may read. */
  conflicts(caller: Caller, scope: string | null, product: string, start: number, end: number, except?: Booking): string[] {
    return overlapping(this.holding(product, except), start, end)
      .filter((b) => this.visibleBooking(caller, scope, b))
      .map((b) => b.id)
      .sort();
  }
}

const unknownNode = '0190a8b2-0000-7000-8000-00000000dead';

/** The `X-Tenant-Id` a step sends, if any: for the system client mostly a node, else rarely one. */
export function chooseHeader(caller: Caller, dice: number, node: Node): string | undefined {
  if (caller.home !== null || caller.kind !== 'client') return dice < 2 ? node.id : undefined;
  if (dice < 5) return undefined;
  if (dice < 17) return node.id;
  return dice < 19 ? 'system' : unknownNode;
}
