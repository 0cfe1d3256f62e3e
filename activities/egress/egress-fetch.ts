/**
 * The one way plugins reach the network: undici's fetch through an agent
 * whose DNS lookup checks every resolved address against the egress policy
 * and hands the connection exactly the addresses it checked (no second
 * lookup, so DNS rebinding between check and connect is impossible). IP
 * literals, which skip the lookup, are checked by `checkHost` before each
 * request. Redirects are not followed here: ./redirects.ts follows them for
 * every plugin, each hop through this function, so every hop is checked again.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent, fetch, type RequestInit, type Response } from 'undici';
import { EgressDenied, checkAddress, checkHost, type EgressPolicy } from './policy';

const agents = new WeakMap<EgressPolicy, Agent>();

export type EgressRequestInit = Omit<RequestInit, 'dispatcher' | 'redirect'>;

/** Wraps every request, sending it with `send` (the tracing's client span and `traceparent`: ./egress-spans.ts). */
export type EgressTracer = (url: URL, init: EgressRequestInit, send: (init: EgressRequestInit) => Promise<Response>) => Promise<Response>;

let tracer: EgressTracer | undefined;

/** Installed by startup/opentelemetry.ts while tracing is on (process-wide, as OpenTelemetry's own registration is). */
export function traceEgress(next: EgressTracer | undefined): void {
  tracer = next;
}

/** One request (redirects not followed): the host and every address it resolves to checked. */
export async function egressFetch(policy: EgressPolicy, url: URL, init: EgressRequestInit): Promise<Response> {
  checkHost(policy, url.hostname);
  const send = (sent: EgressRequestInit) => fetch(url, { ...sent, redirect: 'manual', dispatcher: agentFor(policy) });
  try {
    return await (tracer ? tracer(url, init, send) : send(init));
  } catch (error) {
    throw egressDenial(error) ?? error;
  }
}

/** The EgressDenied inside a failed fetch (undici wraps connection errors as `TypeError: fetch failed`). */
export function egressDenial(error: unknown): EgressDenied | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) if (e instanceof EgressDenied) return e;
  return undefined;
}

/** Reads a body up to `maxBytes` as a stream, stopping (and cancelling) as soon as it is over: undefined then. */
export async function readCapped(response: Response, maxBytes: number): Promise<Buffer | undefined> {
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel();
    return undefined;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      const bytes = chunk.value as Uint8Array;
      size += bytes.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        return undefined;
      }
      chunks.push(bytes);
    }
  }
  return Buffer.concat(chunks);
}

function agentFor(policy: EgressPolicy): Agent {
  let agent = agents.get(policy);
  if (!agent) agents.set(policy, (agent = new Agent({ connect: { lookup: checkedLookup(policy) } })));
  return agent;
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/** A `net.connect` lookup that resolves once, refuses the host if any address is closed, and returns what it checked. */
function checkedLookup(policy: EgressPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { all: true, family: options.family }, (error, addresses) => {
      if (error) return callback(error, []);
      try {
        for (const { address } of addresses) checkAddress(policy, address, hostname);
      } catch (denied) {
        return callback(denied as Error, []);
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
