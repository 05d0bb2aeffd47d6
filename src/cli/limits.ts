/**
 * The command line's timeouts: how long it waits for the processes it starts, stops and asks. Declared
 * once here; the processes' own are in the limits modules of their layers.
 */

/** How long an embedded controller may take to start and print its first line: opening its store, binding. */
export const controllerStartMs = 20_000;

/** How long a connection probe of the embedded controller's port may take: it is on this machine. */
export const controllerProbeMs = 1000;

/** How long a process may take to go once SIGKILL was sent. */
export const killWaitMs = 5000;

/** How often the command looks whether a process it stopped has exited. */
export const exitPollMs = 25;

/** How often `portal reset` reads a process's runtime file to see whether it has stopped. */
export const resetPollMs = 50;

/** How long `portal node show` waits for the node's status server, on this machine, to answer. */
export const statusAnswerMs = 5000;

/**
 * How long a process stopped by a signal may linger once everything is closed, before it exits
 * anyway: a handle something left open must not keep a service manager's stop waiting.
 */
export const lingerAfterStopMs = 2000;

/** How long an administrator enrollment code is valid: a secret printed to a log, good for a day. */
export const adminCodeLifetimeMs = 24 * 3600_000;

/**
 * How long `portal node reload` waits for the node to say how the reload went: reading and checking
 * the file and binding new listeners take moments; draining what it removed goes on after the answer.
 */
export const reloadAnswerMs = 15_000;

/** The most `portal node reload --configuration -` reads from standard input: a node configuration is small. */
export const configurationInputBytes = 1024 * 1024;

/** How often `portal node reload` reads the node's /show while it waits. */
export const reloadPollMs = 50;

/** How often `portal node drain` looks whether the node has stopped, and how many connections it still carries. */
export const drainPollMs = 250;

/** How often `portal project audit --follow` asks the controller for records appended since. */
export const auditFollowPollMs = 1000;
