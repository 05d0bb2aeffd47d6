/**
 * Where the compiled shop outlet's three portals reach on a test machine. The endpoint placeholders stay
 * in the configuration and the outlet fills them from its environment, as compose, Kubernetes and
 * systemd deployments do; only the fixed ports change to the test servers'. The cache is reached by
 * the name its certificate carries (localhost), so the outlet's TLS to it verifies for real.
 */
import type { Retarget } from './usecase-run.ts';

/** The shop's portals and their targets as usecases/shop.yaml compiles them. */
export const shopCompiledTargets: Readonly<Record<string, string>> = {
  'orders-db': '$ORDERS_DB_ENDPOINT:5432',
  cache: '$CACHE_ENDPOINT:6379',
  api: 'localhost:8080',
};

export interface ShopTargetPorts {
  readonly 'orders-db': number;
  readonly cache: number;
  readonly api: number;
}

/** Each compiled target with its port moved; a target other than the one compiled fails the run. */
export function shopRetarget(ports: ShopTargetPorts): Retarget {
  return (compiledTarget, portal) => {
    const expected = shopCompiledTargets[portal];
    if (compiledTarget !== expected || !(portal in ports))
      throw new Error(`the compiled outlet "${portal}" targets ${compiledTarget}, not ${expected ?? 'a shop target'}`);
    return compiledTarget.replace(/:\d+$/, `:${ports[portal as keyof ShopTargetPorts]}`);
  };
}

/** The outlet's environment: its endpoint placeholders' values, and the CA that signed the cache's certificate. */
export function shopOutletEnvironment(cacheCaFile: string): NodeJS.ProcessEnv {
  return { ORDERS_DB_ENDPOINT: '127.0.0.1', CACHE_ENDPOINT: 'localhost', NODE_EXTRA_CA_CERTS: cacheCaFile };
}
