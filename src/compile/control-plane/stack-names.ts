/**
 * Logical ids, machine paths, timings and fixed values of the control plane's CloudFormation stack
 * (control-plane/stack.yaml), in one place: the stack's fragments, its boot scripts, its guide section
 * and the tests all read them from here.
 */

/** Logical ids of parameters, conditions and resources shared between fragments. */
export const planeIds = {
  vpc: 'VpcId',
  publicSubnets: 'PublicSubnetIds',
  privateSubnets: 'PrivateSubnetIds',
  controllerInstanceType: 'ControllerInstanceType',
  relayInstanceType: 'RelayInstanceType',
  databaseInstanceClass: 'DatabaseInstanceClass',
  databaseSecretArn: 'DatabaseSecretArn',
  image: 'ImageId',
  installUrl: 'InstallUrl',
  /** Condition: DatabaseSecretArn is empty, so the stack creates the database. */
  createDatabase: 'CreateDatabase',
  logGroup: 'ControlPlaneLogGroup',
  sealingKeySecret: 'ControllerSealingKeySecret',
  relayTicketSecret: 'RelayTicketSecret',
  relaySealingKeySecret: 'RelaySealingKeySecret',
  loadBalancerSecurityGroup: 'LoadBalancerSecurityGroup',
  controllerSecurityGroup: 'ControllerSecurityGroup',
  databaseSecurityGroup: 'DatabaseSecurityGroup',
  relaySecurityGroup: 'RelaySecurityGroup',
  relayStateSecurityGroup: 'RelayStateSecurityGroup',
  loadBalancer: 'ControllerLoadBalancer',
  targetGroup: 'ControllerTargetGroup',
  listener: 'ControllerListener',
  databaseSubnetGroup: 'DatabaseSubnetGroup',
  database: 'Database',
  controllerRole: 'ControllerRole',
  controllerProfile: 'ControllerInstanceProfile',
  controllerLaunchTemplate: 'ControllerLaunchTemplate',
  controllerGroup: 'ControllerGroup',
  relayFileSystem: 'RelayFileSystem',
  relayRole: 'RelayRole',
  relayProfile: 'RelayInstanceProfile',
  relayLaunchTemplate: 'RelayLaunchTemplate',
} as const;

/** Relay n's autoscaling group (one machine each, tagged with n), whose boot script signals it. */
export const relayGroupPrefix = 'RelayGroup';
export const relayGroup = (relay: number): string => `${relayGroupPrefix}${relay}`;

/**
 * The relays run in the first two public subnets, and the relays' file system has a mount target in each,
 * so that a relay moved to the other Availability Zone still finds its identity.
 */
export const relaySubnetIndexes = [0, 1] as const;
export const relayMountTarget = (index: number): string => `RelayMountTarget${index + 1}`;

/** Output keys, which the guide reads with describe-stacks. */
export const planeOutputs = {
  controllerAddress: 'ControllerAddress',
  logGroup: 'LogGroupName',
  relayTicketSecret: 'RelayTicketSecretArn',
  sealingKeySecret: 'SealingKeySecretArn',
  relaySealingKeySecret: 'RelaySealingKeySecretArn',
  relayFileSystem: 'RelayFileSystemId',
  databaseSecret: 'DatabaseSecretInUse',
  databaseEndpoint: 'DatabaseEndpoint',
  controllerSecurityGroup: 'ControllerSecurityGroupId',
} as const;

/** The database the stack creates, and what the controllers connect to. */
export const planeDatabase = {
  engine: 'postgres',
  /** A major version: RDS takes its current minor version. */
  engineVersion: '16',
  defaultInstanceClass: 'db.m6g.large',
  storageGb: 20,
  maxStorageGb: 200,
  backupRetentionDays: 7,
  port: 5432,
  /** The certificate authorities of every RDS region, which verify-full checks the server against. */
  caBundleUrl: 'https://truststore.pki.rds.amazonaws.com/global/global-bundle.pem',
  caBundleFile: '/etc/portal/rds-ca.pem',
  /**
   * JSON keys of the secrets: RDS's own (username, password) and the one an administrator brings for a
   * database of theirs (url, password).
   */
  urlKey: 'url',
  passwordKey: 'password',
} as const;

/** Where the machines keep what they are given: secrets under /run (memory), state under /var/lib. */
export const planePaths = {
  home: '/var/lib/portal',
  runDirectory: '/run/portal',
  controllerSealingKeyFile: '/run/portal/controller-seal.key',
  databasePasswordFile: '/run/portal/database.password',
  /** The relay's $PORTAL_HOME/keys is a link to this folder in memory, filled from the relays' secret. */
  relayKeysDirectory: '/run/portal/relay-keys',
  relayTicketFile: '/run/portal/relay.ticket',
  controllerLog: '/var/log/portal/controller.log',
  relayLog: '/var/log/portal/relay.log',
} as const;

/** Timings of the stack and its machines. */
export const planeTimings = {
  /** The controllers' boot: installing, then the first start (which migrates an empty database). */
  controllerBootTimeout: 'PT30M',
  relayBootTimeout: 'PT20M',
  /** Seconds before the load balancer's health checks count against a new controller. */
  healthCheckGraceSeconds: 1200,
  /** A relay waits for its ticket this many times, this many seconds apart, then starts over. */
  ticketAttempts: 60,
  ticketSeconds: 30,
  /** How often a controller compares the database password with the secret (RDS rotates it). */
  passwordCheckSeconds: 60,
  logRetentionDays: 30,
} as const;

/** Machine types the stack suggests. */
export const planeInstanceTypes = { controller: 'm6a.large' } as const;

/** Letters, digits, dots, underscores and dashes: what `portal project ticket` prints. */
export const ticketPattern = '^[A-Za-z0-9._-]+$';

/** What the relay ticket secret holds until the administrator stores a ticket: never a ticket. */
export const relayTicketPlaceholder = 'no relay ticket yet: store one with aws secretsmanager put-secret-value';

/** Lines the boot scripts and the programs print, which the guide tells the administrator to look for. */
export const planeLines = {
  controllerReady: 'Portal controller setup completed successfully',
  relayReady: 'Portal relay setup completed successfully',
  adminCode: 'one-time admin code',
  relayListening: 'Portal relay',
  relayWaiting: 'waiting for a relay ticket',
} as const;

/** The stack name the guide suggests. */
export const planeStackName = (usecase: string): string => `${usecase}-control-plane`;
