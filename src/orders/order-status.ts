import { ConflictProblem, FieldError, ValidationProblem } from '../common/errors/problems';

/**
 * The order's two state machines (API.md §5, docs/orders.md), as pure rules: a transition that
 * is not listed is a 409 `transition_forbidden`, and the caller changes nothing.
 */

export const PAYMENT_STATUSES = ['pending', 'paid', 'refunded'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const FULFILLMENT_STATUSES = ['unfulfilled', 'partially_fulfilled', 'fulfilled', 'canceled'] as const;
export type FulfillmentStatus = (typeof FULFILLMENT_STATUSES)[number];

/** Payment: `pending → paid → refunded`, nothing else (asking for the current status too). */
export const PAYMENT_TRANSITIONS: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  pending: ['paid'],
  paid: ['refunded'],
  refunded: [],
};

export function assertPaymentTransition(from: PaymentStatus, to: PaymentStatus): void {
  if (!PAYMENT_TRANSITIONS[from].includes(to))
    throw new ConflictProblem('transition_forbidden', `An order's payment cannot go from ${from} to ${to}`);
}

/** A line as fulfillment sees it: ordered and fulfilled quantities. */
export interface FulfillableLine {
  id: number;
  quantity: number;
  fulfilledQuantity: number;
}

/** A change of fulfillment: a shipment of some lines (all that is left when `lines` is absent), or a status. */
export type FulfillmentChange =
  | { kind: 'shipment'; lines?: Array<{ lineId: number; quantity: number }> }
  | { kind: 'status'; status: 'fulfilled' | 'canceled' };

export interface FulfillmentOutcome {
  status: FulfillmentStatus;
  /** Every line's fulfilled quantity after the change, by line id. */
  fulfilled: Map<number, number>;
  /** What the change fulfilled, per line (a shipment's lines); empty for a cancel. */
  added: Array<{ lineId: number; quantity: number }>;
  /** What a cancel gives back to stock: the quantities not fulfilled, per line. */
  released: Array<{ lineId: number; quantity: number }>;
}

/** The status quantities say: nothing, some or everything fulfilled. */
export function derivedStatus(lines: FulfillableLine[]): FulfillmentStatus {
  if (lines.every((l) => l.fulfilledQuantity >= l.quantity)) return 'fulfilled';
  return lines.some((l) => l.fulfilledQuantity > 0) ? 'partially_fulfilled' : 'unfulfilled';
}

const forbidden = (from: FulfillmentStatus, what: string) =>
  new ConflictProblem('transition_forbidden', `A ${from.replace('_', ' ')} order cannot ${what}`);

/**
 * Applies a change to an order's fulfillment:
 * - a shipment adds fulfilled quantities (never past what was ordered: 409 `quantity_exceeds_order`)
 *   and the status follows: `partially_fulfilled` or `fulfilled`; a canceled or fulfilled order
 *   ships nothing (409 `transition_forbidden`);
 * - `fulfilled` fulfils whatever is left, without a shipment (downloads, pick-up);
 * - `canceled` from `unfulfilled` or `partially_fulfilled`; what was not fulfilled is released.
 * `path` prefixes the field names of 400s (`shipment`).
 */
export function applyFulfillment(
  status: FulfillmentStatus,
  lines: FulfillableLine[],
  change: FulfillmentChange,
  path = 'shipment',
): FulfillmentOutcome {
  const open = status === 'unfulfilled' || status === 'partially_fulfilled';
  const fulfilled = new Map(lines.map((l) => [l.id, l.fulfilledQuantity]));
  const remaining = lines
    .filter((l) => l.quantity > l.fulfilledQuantity)
    .map((l) => ({ lineId: l.id, quantity: l.quantity - l.fulfilledQuantity }));
  if (change.kind === 'status' && change.status === 'canceled') {
    if (!open) throw forbidden(status, 'be canceled');
    return { status: 'canceled', fulfilled, added: [], released: remaining };
  }
  if (!open) throw forbidden(status, change.kind === 'shipment' ? 'ship' : 'be fulfilled');
  const added = change.kind === 'shipment' && change.lines ? checkShipment(lines, change.lines, path) : remaining;
  for (const a of added) fulfilled.set(a.lineId, fulfilled.get(a.lineId)! + a.quantity);
  const after = lines.map((l) => ({ ...l, fulfilledQuantity: fulfilled.get(l.id)! }));
  return { status: derivedStatus(after), fulfilled, added, released: [] };
}

function checkShipment(
  lines: FulfillableLine[],
  shipped: Array<{ lineId: number; quantity: number }>,
  path: string,
): Array<{ lineId: number; quantity: number }> {
  const byId = new Map(lines.map((l) => [l.id, l]));
  const errors: FieldError[] = [];
  const seen = new Set<number>();
  shipped.forEach((s, i) => {
    if (!byId.has(s.lineId)) errors.push({ path: `${path}.lines.${i}.lineId`, message: 'is not a line of this order' });
    else if (seen.has(s.lineId)) errors.push({ path: `${path}.lines.${i}.lineId`, message: 'is listed twice' });
    seen.add(s.lineId);
  });
  if (errors.length) throw new ValidationProblem(errors);
  for (const s of shipped) {
    const line = byId.get(s.lineId)!;
    const left = line.quantity - line.fulfilledQuantity;
    if (s.quantity > left)
      throw new ConflictProblem(
        'quantity_exceeds_order',
        `Line ${line.id} has ${left} of ${line.quantity} left to fulfil; a shipment of ${s.quantity} is more than that`,
      );
  }
  return shipped;
}
