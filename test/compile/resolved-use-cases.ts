/** The bundled use cases as the generators take them: parsed, then every default filled in. */
import { resolveUseCase, type UseCase } from '../../src/compile/model.ts';
import { loadManifest } from '../support/usecases.ts';

export function loadUseCase(usecase: string): UseCase {
  return resolveUseCase(loadManifest(usecase));
}
