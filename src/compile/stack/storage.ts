/** The network file system that keeps the node's state (spec 2.4), mounted in the node's subnet. */
import { ref, sub } from './intrinsics.ts';
import { ids } from './context.ts';
import { keepOnDeleteAndReplace, tags, type CfnFragment } from './template.ts';

const nfsPort = 2049;

export function storageFragment(): CfnFragment {
  return {
    Resources: {
      [ids.fileSystem]: {
        Type: 'AWS::EFS::FileSystem',
        ...keepOnDeleteAndReplace,
        Properties: {
          Encrypted: true,
          PerformanceMode: 'generalPurpose',
          FileSystemTags: tags({ Name: sub('${AWS::StackName}-state') }),
        },
      },
      StateMountTargetSecurityGroup: {
        Type: 'AWS::EC2::SecurityGroup',
        Properties: {
          GroupDescription: 'Portal node state: NFS from the node only',
          VpcId: ref(ids.vpc),
          SecurityGroupIngress: [
            {
              IpProtocol: 'tcp',
              FromPort: nfsPort,
              ToPort: nfsPort,
              SourceSecurityGroupId: ref(ids.nodeSecurityGroup),
              Description: 'NFS from the node',
            },
          ],
        },
      },
      [ids.mountTarget]: {
        Type: 'AWS::EFS::MountTarget',
        Properties: {
          FileSystemId: ref(ids.fileSystem),
          SubnetId: ref(ids.subnet),
          SecurityGroups: [ref('StateMountTargetSecurityGroup')],
        },
      },
    },
    Outputs: { StateFileSystemId: { Description: 'File system holding the node state', Value: ref(ids.fileSystem) } },
  };
}
