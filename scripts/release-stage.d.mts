/** What scripts/release-stage.mjs exports, typed for the tests that stage a release. */
export const nativeModules: readonly string[];
export function stageRelease(root: string, stage: string): Record<string, string>;
