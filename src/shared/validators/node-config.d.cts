/* The type of the validator scripts/generate-types.ts compiles from schemas/node-config.schema.json. */
import type { ValidateFunction } from 'ajv';
import type { NodeConfig } from '../types/node-config.ts';

declare const validate: ValidateFunction<NodeConfig>;
export = validate;
