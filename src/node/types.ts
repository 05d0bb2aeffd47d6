/**
 * Shapes that the node's parts produce and its status (show.ts) reads. They live apart from both, so a
 * part that reports itself does not import the module that reads every part, which imports it.
 */

/** One relay of the project and this node's connection to it, as /show lists it. */
export interface RelayShow {
  readonly id: string;
  readonly address: string;
  /** "waiting": on the project's list, not holding one of the node's relay connections right now. */
  readonly status: 'connected' | 'reconnecting' | 'waiting';
}
