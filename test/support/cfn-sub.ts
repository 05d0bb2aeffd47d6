/** Evaluates a Fn::Sub template the way CloudFormation does, with the values a stack launch would give. */
export function resolveSub(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\$\{(!?)([^}]+)\}/g, (_, escaped: string, name: string) => {
    if (escaped) return `\${${name}}`;
    const value = values[name];
    if (value === undefined) throw new Error(`no value for \${${name}}`);
    return value;
  });
}
