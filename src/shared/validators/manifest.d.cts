/* The type of the validator scripts/generate-types.ts compiles from schemas/manifest.schema.json. */
import type { ValidateFunction } from 'ajv';
import type { UseCaseManifest } from '../types/manifest.ts';

declare const validate: ValidateFunction<UseCaseManifest>;
export = validate;
