/** The bundled use cases as the generators take them: parsed, then every default filled in. */
import { resolveUseCase, type UseCase } from '../../src/compile/model.ts';
import { loadManifest } from '../support/usecases.ts';

export function loadUseCase(usecase: string): UseCase {
  return resolveUseCase(loadManifest(usecase));
}

/** Values a stack launch gives the bundled use cases' endpoint parameters. */
export const endpointParameterValues: Readonly<Record<string, string>> = {
  PostgresEndpoint: 'db.internal.example',
  RedshiftEndpoint: 'wh.internal.example:5439',
  RedisEndpoint: 'cache.internal.example',
  ApiEndpoint: 'api.internal.example',
  OrdersDbEndpoint: 'orders.internal.example',
  CacheEndpoint: 'cache.internal.example',
};
